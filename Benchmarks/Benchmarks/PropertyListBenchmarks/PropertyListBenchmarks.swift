// Decoding and encoding a ~10 MB mixed property list in XML and binary,
// OpenDefaults' PropertyList against Foundation's PropertyListSerialization,
// on the same bytes in the same run.
import Benchmark
import Foundation
import PropertyList
import CHeapSize

/// A deterministic document of ~10 MB as XML (~3.5 MB binary): dictionaries and arrays of strings (some
/// non-ASCII), integers, reals, booleans, dates and data.
func makeDocument() -> PropertyList {
    var rng = SplitMix(seed: 1)
    let words = ["alpha", "beta", "gamma", "δέλτα", "epsilon", "ζήτα", "名前", "données", "key", "value", "😀 emoji", "com.example.app"]
    func record(_ i: Int) -> PropertyList {
        var d: [LiteralString: PropertyList] = [:]
        d["id"] = PropertyList(i)
        d["name"] = .string(words[Int(rng.next() % 12)] + " \(i)")
        d["score"] = .real(Double(rng.next() % 1_000_000) / 1000)
        d["enabled"] = .boolean(rng.next() % 2 == 0)
        d["created"] = .date(Date(timeIntervalSinceReferenceDate: Double(rng.next() % 800_000_000)))
        d["blob"] = .data(Data((0..<Int(rng.next() % 48)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
        d["tags"] = .array((0..<Int(rng.next() % 5)).map { _ in .string(words[Int(rng.next() % 12)]) })
        d["counts"] = .array((0..<4).map { _ in PropertyList(Int64(bitPattern: rng.next()) >> Int64(rng.next() % 60)) })
        d["nested"] = ["level": PropertyList(i % 7), "label": .string("item-\(i % 97)"), "ratio": .real(Double(i) / 7)]
        return .dictionary(d)
    }
    var groups: [LiteralString: PropertyList] = [:]
    for g in 0..<25 {
        groups["group-\(g)"] = .array((0..<500).map { record(g * 500 + $0) })
    }
    return .dictionary(groups)
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func objectCount(_ v: PropertyList) -> Int {
    switch v {
    case .array(let a): 1 + a.reduce(0) { $0 + objectCount($1) }
    case .dictionary(let d): 1 + d.count + d.values.reduce(0) { $0 + objectCount($1) }
    default: 1
    }
}

let document = makeDocument()
nonisolated(unsafe) let xmlBytes = try! document.encoded(as: .xml)
nonisolated(unsafe) let binaryBytes = try! document.encoded(as: .binary)
nonisolated(unsafe) let xmlData = Data(xmlBytes)
nonisolated(unsafe) let binaryData = Data(binaryBytes)
nonisolated(unsafe) let foundationObject = try! PropertyListSerialization.propertyList(from: xmlData, format: nil)

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
    print("document: \(objects) objects; XML \(xmlBytes.count) bytes, binary \(binaryBytes.count) bytes")
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
}
