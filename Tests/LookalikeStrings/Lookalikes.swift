public import PropertyList
import TestSupport

/// Seeded, replayable property lists whose keys and strings include strings
/// that are canonically equivalent but not the same scalars (NFC against
/// NFD, singleton decompositions, Hangul, the order of combining marks).
///
/// Apple's property lists, `CFDictionary` and CFPreferences keep such strings
/// apart; Swift's `String ==` does not. Every test that moves data through a
/// layer (a format, a process, a tool, the sync server) runs these values
/// through it and checks them with ``sameScalars(_:_:)``, which compares
/// scalar by scalar without using `String` or `PropertyList` equality.
///
/// The seed is `OPENDEFAULTS_SEED` when set (to replay a failure), else
/// random; a test prints it in every failure message.
public struct Lookalikes {
    /// Groups of strings that `String ==` calls equal, each member made of
    /// other scalars.
    public static let groups: [[String]] = [
        ["caf\u{E9}", "cafe\u{301}"],                          // NFC / NFD
        ["\u{340}", "\u{300}"],                                // singleton decomposition
        ["\u{212B}", "\u{C5}", "A\u{30A}"],                    // Angstrom sign, Å, A + ring above
        ["\u{2126}", "\u{3A9}"],                               // Ohm sign, Omega
        ["\u{AC00}", "\u{1100}\u{1161}"],                      // Hangul syllable, jamo
        ["\u{D4DB}", "\u{1111}\u{1171}\u{11B6}"],              // Hangul with a final jamo
        ["a\u{323}\u{307}", "a\u{307}\u{323}", "\u{1EA1}\u{307}"], // order of combining marks
        ["\u{1E0A}\u{323}", "D\u{323}\u{307}", "\u{1E0C}\u{307}"], // Ḍ̇ three ways
        ["\u{F900}", "\u{8C48}"],                              // CJK compatibility ideograph
        ["e\u{302}\u{301}", "\u{EA}\u{301}", "\u{1EBF}"],      // ế
    ]

    /// The seed these values come from.
    public var seed: UInt64 { random.seed }
    private var random: SeededRandom

    /// Values from `seed`, or from `OPENDEFAULTS_SEED`, or a random seed.
    public init(seed: UInt64? = nil) {
        random = SeededRandom(seed: seed)
    }

    /// The next number of the seeded sequence.
    public mutating func next() -> UInt64 { random.next() }

    /// A number in `0..<n`.
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// A string: a lookalike, sometimes with ASCII around it.
    public mutating func string() -> String {
        let group = Self.groups[below(Self.groups.count)]
        let core = group[below(group.count)]
        switch below(4) {
        case 0: return core
        case 1: return "k" + core
        case 2: return core + "\(below(10))"
        default: return "x" + core + "y"
        }
    }

    /// A dictionary holding, for some groups, every member of the group as a
    /// key (so that a layer merging equivalent keys loses entries), with
    /// lookalike strings, numbers and nested collections as values.
    public mutating func dictionary(depth: Int = 0, keyLimit: Int = .max) -> [LiteralString: PropertyList] {
        var out: [LiteralString: PropertyList] = [:]
        let groups = 1 + below(4)
        for _ in 0..<groups {
            let group = Self.groups[below(Self.groups.count)]
            let decoration = ["", "k", "x-"][below(3)]
            for member in group where out.count < keyLimit {
                out[LiteralString(decoration + member)] = value(depth: depth + 1)
            }
        }
        return out
    }

    /// A value: a lookalike string most often, else a number, an array of
    /// lookalikes, or (above `depth` 2) a nested dictionary.
    public mutating func value(depth: Int = 0) -> PropertyList {
        switch below(depth >= 2 ? 3 : 5) {
        case 0, 1: return .string(string())
        case 2: return .integer(.init(Int64(below(1000))))
        case 3: return .array((0..<(1 + below(3))).map { _ in .string(string()) })
        default: return .dictionary(dictionary(depth: depth))
        }
    }

    /// Whether `a` and `b` are the same value with the same scalars in every
    /// string and key, compared without `String` or `PropertyList` equality.
    public static func sameScalars(_ a: PropertyList, _ b: PropertyList) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)): return Array(x.unicodeScalars) == Array(y.unicodeScalars)
        case let (.array(x), .array(y)):
            return x.count == y.count && zip(x, y).allSatisfy { sameScalars($0, $1) }
        case let (.dictionary(x), .dictionary(y)):
            guard x.count == y.count else { return false }
            let xs = x.map { (Array($0.key.string.unicodeScalars), $0.value) }.sorted { $0.0.lexicographicallyPrecedes($1.0) { $0.value < $1.value } }
            let ys = y.map { (Array($0.key.string.unicodeScalars), $0.value) }.sorted { $0.0.lexicographicallyPrecedes($1.0) { $0.value < $1.value } }
            return zip(xs, ys).allSatisfy { $0.0 == $1.0 && sameScalars($0.1, $1.1) }
        case let (.integer(x), .integer(y)): return x == y
        default: return a == b
        }
    }

    /// `value` with integers as their text: old-style text (and the
    /// `defaults write` grammar reading it) has no integers.
    public static func integersAsStrings(_ value: PropertyList) -> PropertyList {
        switch value {
        case .integer(let n): .string("\(n)")
        case .array(let a): .array(a.map(integersAsStrings))
        case .dictionary(let d): .dictionary(d.mapValues(integersAsStrings))
        default: value
        }
    }

    /// The scalars of every key, written out, for failure messages.
    public static func describe(_ value: PropertyList) -> String {
        switch value {
        case .string(let s): return "\"" + s.unicodeScalars.map { $0.value < 0x80 ? String($0) : "\\u{" + String($0.value, radix: 16) + "}" }.joined() + "\""
        case .array(let a): return "[" + a.map(describe).joined(separator: ", ") + "]"
        case .dictionary(let d):
            return "{" + d.keys.sorted().map { describe(.string($0.string)) + ": " + describe(d[$0]!) }.joined(separator: ", ") + "}"
        default: return "\(value)"
        }
    }
}
