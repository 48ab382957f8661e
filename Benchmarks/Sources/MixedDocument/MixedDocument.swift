// The mixed property list every property-list figure is measured on: the
// library benchmarks decode and encode it, and `plist-mixed` writes it to a file
// for the whole-process comparison of plutil with libplist's plistutil.
import Foundation
import PropertyList

/// A deterministic document of ~10 MB as XML (~3.5 MB binary): dictionaries and arrays of strings (some
/// non-ASCII), integers, reals, booleans, dates and data.
public func makeDocument() -> PropertyList {
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

public struct SplitMix {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

public func objectCount(_ v: PropertyList) -> Int {
    switch v {
    case .array(let a): 1 + a.reduce(0) { $0 + objectCount($1) }
    case .dictionary(let d): 1 + d.count + d.values.reduce(0) { $0 + objectCount($1) }
    default: 1
    }
}


/// The document with what JSON cannot hold made text: dates as their XML
/// form, data as base64.
public func jsonCompatible(_ v: PropertyList) -> PropertyList {
    switch v {
    case .date(let d): .string(d.formatted(.iso8601))
    case .data(let d): .string(d.base64EncodedString())
    case .array(let a): .array(a.map(jsonCompatible))
    case .dictionary(let d): .dictionary(d.mapValues(jsonCompatible))
    default: v
    }
}
