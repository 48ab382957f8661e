// libFuzzer entry point for one property-list reader, chosen at compile time
// with -D FUZZ_XML, FUZZ_BINARY, FUZZ_OPENSTEP or FUZZ_JSON. Built by
// Fuzz/run.sh together with the PropertyList sources as one module, so the
// readers are called directly. Every value read is also written back in
// every format and read again: writers must take whatever readers produce.
// The binary harness also checks the binary-to-XML walk against decoding,
// the XML harness the XML-to-binary transcoder.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let value: PropertyList?
    #if FUZZ_XML
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
    #elseif FUZZ_BINARY
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
    #elseif FUZZ_OPENSTEP
    value = try? OpenStepReader.read(bytes)
    #elseif FUZZ_JSON
    value = try? JSONReader.read(bytes)
    #else
    value = try? PropertyList.decode(raw: bytes, format: nil, options: .init()).0
    #endif
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
