// libFuzzer entry point for one property-list reader, chosen at compile time
// with -D FUZZ_XML, FUZZ_BINARY, FUZZ_OPENSTEP or FUZZ_JSON. Built by
// Fuzz/run.sh together with the PropertyList sources as one module, so the
// readers are called directly. Every value read is also written back in
// every format and read again: writers must take whatever readers produce.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let value: PropertyList?
    #if FUZZ_XML
    value = try? XMLReader.read(bytes)
    #elseif FUZZ_BINARY
    value = try? BinaryReader.read(bytes)
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
