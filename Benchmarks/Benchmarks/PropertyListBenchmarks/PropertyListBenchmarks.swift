// Decoding and encoding a ~10 MB mixed property list in XML and binary,
// OpenDefaults' PropertyList against Foundation's PropertyListSerialization,
// on the same bytes in the same run.
import Benchmark
import Foundation
import PropertyList
import CHeapSize
import MixedDocument

let document = makeDocument()
nonisolated(unsafe) let xmlBytes = try! document.encoded(as: .xml)
nonisolated(unsafe) let binaryBytes = try! document.encoded(as: .binary)
nonisolated(unsafe) let xmlData = Data(xmlBytes)
nonisolated(unsafe) let binaryData = Data(binaryBytes)
nonisolated(unsafe) let foundationObject = try! PropertyListSerialization.propertyList(from: xmlData, format: nil)
// JSON holds the document with dates and data as text (MixedDocument's jsonCompatible);
// Foundation's peer is JSONSerialization. Old-style (OpenStep) text: Foundation reads it
// (PropertyListSerialization) but cannot write it, so only the decode has a peer; it reads
// neither GNUstep's typed forms (`<*I5>`, `<*D…>`) nor dates, so both read a variant whose
// numbers, booleans and dates are strings, as Apple's old-style format holds them.
func oldStyleStrings(_ v: PropertyList) -> PropertyList {
    switch v {
    case .integer(let n): .string(n.int64Value.map(String.init) ?? String(n.uint64Value!))
    case .real(let d): .string(String(d))
    case .boolean(let b): .string(b ? "YES" : "NO")
    case .array(let a): .array(a.map(oldStyleStrings))
    case .dictionary(let d): .dictionary(d.mapValues(oldStyleStrings))
    default: v
    }
}
let openStepDocument = oldStyleStrings(jsonDocument)
let jsonDocument = jsonCompatible(document)
nonisolated(unsafe) let jsonBytes = try! jsonDocument.encoded(as: .json)
nonisolated(unsafe) let jsonData = Data(jsonBytes)
nonisolated(unsafe) let foundationJSONObject = try! JSONSerialization.jsonObject(with: jsonData)
nonisolated(unsafe) let openStepBytes = try! openStepDocument.encoded(as: .openStep)
nonisolated(unsafe) let openStepData = Data(openStepBytes)

/// Bytes the heap holds now (glibc's count of allocated blocks, mapped ones included).
func heapBytes() -> Int { Int(cheapsize_heap_bytes()) }

/// The heap a decoded value holds: the heap's growth while the value is kept.
func decodedSize(_ decode: () throws -> Any) rethrows -> Int {
    let before = heapBytes()
    let value = try decode()
    let size = heapBytes() - before
    withExtendedLifetime(value) {}
    return size
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .mallocBytesCount, .peakMemoryResident, .throughput],
        timeUnits: .milliseconds,
        maxDuration: .seconds(10),
        maxIterations: 20
    )
    let objects = objectCount(document)
    print("document: \(objects) objects; XML \(xmlBytes.count) bytes, binary \(binaryBytes.count) bytes, JSON \(jsonBytes.count), old-style \(openStepBytes.count)")
    // "Malloc (bytes total)" counts every byte a decode allocates, the decoded
    // value and the decoder's scratch space, so it bounds the decode's peak heap
    // from above; divided by these sizes it gives peak memory per decoded byte.
    let ours = try! decodedSize { try PropertyList(decoding: binaryBytes, format: .binary) }
    let oursXML = try! decodedSize { try PropertyList(decoding: xmlBytes, format: .xml) }
    let theirs = try! decodedSize { try PropertyListSerialization.propertyList(from: binaryData, format: nil) }
    print("decoded value on the heap: OpenDefaults \(ours) bytes (from binary), \(oursXML) (from XML); Foundation \(theirs)")

    Benchmark("XML decode · OpenDefaults") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PropertyList(decoding: xmlBytes, format: .xml)) }
    }
    Benchmark("XML decode · Foundation") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PropertyListSerialization.propertyList(from: xmlData, format: nil)) }
    }
    Benchmark("Binary decode · OpenDefaults") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PropertyList(decoding: binaryBytes, format: .binary)) }
    }
    Benchmark("Binary decode · Foundation") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PropertyListSerialization.propertyList(from: binaryData, format: nil)) }
    }
    Benchmark("XML encode · OpenDefaults") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try document.encoded(as: .xml)) }
    }
    Benchmark("XML encode · Foundation") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try PropertyListSerialization.data(fromPropertyList: foundationObject, format: .xml, options: 0))
        }
    }
    Benchmark("Binary encode · OpenDefaults") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try document.encoded(as: .binary)) }
    }
    Benchmark("Binary encode · Foundation") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try PropertyListSerialization.data(fromPropertyList: foundationObject, format: .binary, options: 0))
        }
    }
    Benchmark("JSON decode · OpenDefaults") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PropertyList(decoding: jsonBytes, format: .json)) }
    }
    Benchmark("JSON decode · Foundation") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try JSONSerialization.jsonObject(with: jsonData)) }
    }
    Benchmark("JSON encode · OpenDefaults") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try jsonDocument.encoded(as: .json)) }
    }
    Benchmark("JSON encode · Foundation") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JSONSerialization.data(withJSONObject: foundationJSONObject, options: [.sortedKeys]))
        }
    }
    Benchmark("OpenStep decode · OpenDefaults") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PropertyList(decoding: openStepBytes, format: .openStep)) }
    }
    Benchmark("OpenStep decode · Foundation") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PropertyListSerialization.propertyList(from: openStepData, format: nil)) }
    }
    Benchmark("OpenStep encode · OpenDefaults") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try openStepDocument.encoded(as: .openStep)) }
    }
}
