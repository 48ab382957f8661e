// libFuzzer entry point for one property-list reader, chosen at compile time
// with -D FUZZ_XML, FUZZ_BINARY, FUZZ_OPENSTEP or FUZZ_JSON. Built by
// Fuzz/run.sh together with the PropertyList sources as one module, so the
// readers are called directly. Every value read is also written back in
// every format and read again: writers must take whatever readers produce.
// The binary harness also checks the binary-to-XML walk against decoding.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let value: PropertyList?
    #if FUZZ_XML
    value = try? XMLReader<PropertyListBuilder>.read(bytes)
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
