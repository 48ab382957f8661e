// libFuzzer entry point for one property-list reader, chosen when the harness
// starts by FUZZ_READER (xml, binary, openstep or json; unset: the format
// detected; any other word stops the harness). One binary serves the four
// readers, so CI compiles the sources once. Built by Fuzz/run.sh together with
// the PropertyList sources as one module, so the readers are called directly.
// Every value read is also written back in every format and read again:
// writers must take whatever readers produce. The binary harness also checks
// the binary-to-XML walk against decoding, the XML harness the XML-to-binary
// transcoder.

#if canImport(Glibc)
import Glibc
#endif

enum FuzzedReader: String {
    case xml, binary, openstep, json, detected

    /// The reader this run fuzzes, read once from the environment.
    static let chosen: FuzzedReader = {
        guard let name = getenv("FUZZ_READER").map({ String(cString: $0) }) else { return .detected }
        guard let reader = FuzzedReader(rawValue: name) else { fatalError("FUZZ_READER=\(name): expected xml, binary, openstep or json") }
        return reader
    }()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let value: PropertyList?
    switch FuzzedReader.chosen {
    case .xml:
        let read: Result<PropertyList, PropertyListError> = Result { () throws(PropertyListError) in try XMLReader<PropertyListBuilder>.read(bytes) }
        value = try? read.get()
        // `plutil -convert binary1` writes an XML file's binary form without the
        // value (BinaryFromXML.swift): the same bytes as writing the value, and
        // the same error as reading it.
        let transcoded: Result<[UInt8], PropertyListError> = Result { () throws(PropertyListError) in
            try PropertyList.binaryOutput(fromXML: Array(bytes)).bytes()
        }
        switch (read, transcoded) {
        case (.success(let v), .success(let b)):
            if BinaryWriter.write(v).bytes() != b { fatalError("XML to binary without the value differs from decoding and writing") }
        case (.failure(let e), .failure(let f)):
            if e.description != f.description { fatalError("XML to binary without the value failed otherwise than decoding") }
        default:
            fatalError("XML to binary without the value and decoding disagree on whether the document reads")
        }
    case .binary:
        value = try? BinaryReader.read(bytes)
        // `plutil -convert xml1` writes a binary file's XML without the value
        // (BinaryXMLWalk.swift): the same bytes as writing the value, and a
        // refusal exactly where decoding refuses.
        let walked = try? BinaryXMLWalk.xml(bytes).bytes()
        let converted = try? PropertyList.xmlOutput(fromBinary: bytes).bytes()
        let written = value.map { XMLWriter.write($0).bytes() }
        if converted != written { fatalError("binary to XML without the value differs from decoding and writing") }
        if let walked, walked != written { fatalError("the walk wrote other XML than decoding and writing") }
        var pieces: [UInt8] = []
        if (try? BinaryXMLWalk.xmlPieces(bytes, pieceSize: 64, { pieces.append(contentsOf: $0) })) != nil {
            if walked == nil || pieces != walked { fatalError("the walk in pieces differs from the walk") }
        } else if walked != nil {
            fatalError("the walk in pieces refused what the walk took")
        }
    case .openstep:
        value = try? OpenStepReader.read(bytes)
    case .json:
        value = try? JSONReader.read(bytes)
    case .detected:
        value = try? PropertyList.decode(raw: bytes, format: nil, options: .init()).0
    }
    guard let value else { return 0 }
    for format in PropertyListFormat.allCases {
        guard let encoded = try? value.encoded(as: format) else { continue }
        guard let again = try? PropertyList(decoding: encoded, format: format) else {
            fatalError("\(format) writer produced bytes its reader rejects")
        }
        if format == .binary, again != value { fatalError("binary round trip changed the value") }
    }
    _ = value.description
    return 0
}
