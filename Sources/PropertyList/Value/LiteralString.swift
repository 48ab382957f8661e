/// A string that is equal to another only when their Unicode scalars are the
/// same, one for one: the identity CFString, NSDictionary and property lists
/// give strings.
///
/// Swift's `String` compares by canonical equivalence, so `"caf\u{E9}"` (é as
/// one scalar) equals `"cafe\u{301}"` (e and a combining accent). Apple's
/// property lists, `CFDictionary` and CFPreferences compare code unit by code
/// unit: those are two keys there, and a dictionary keyed by `String` would
/// silently keep only one of them. Every dictionary key and every uniqued
/// string in OpenDefaults is a `LiteralString` (proposal 0013).
///
/// ```swift
/// let composed: LiteralString = "caf\u{E9}"
/// let decomposed: LiteralString = "cafe\u{301}"
/// assert(composed != decomposed)          // two keys, as in CFDictionary
/// assert("caf\u{E9}" == "cafe\u{301}")    // one, as String sees them
///
/// let d: [LiteralString: PropertyList] = [composed: 1, decomposed: 2]
/// assert(d.count == 2)
/// ```
///
/// Equality and hashing use the string's UTF-8 bytes (one-to-one with its
/// scalars). Order is CFString's literal order, by UTF-16 code unit, which is
/// the order Apple's writers sort dictionary keys in.
@frozen
public struct LiteralString: Sendable {
    /// The string, exactly as given.
    public var string: String

    /// The literal identity of `string`.
    @inlinable
    public init(_ string: String) { self.string = string }

    /// The number of bytes of the string's UTF-8 form.
    @inlinable
    public var utf8Count: Int { string.utf8.count }
}

extension LiteralString: Equatable {
    /// Whether both strings have the same scalars, one for one.
    @inlinable
    public static func == (lhs: LiteralString, rhs: LiteralString) -> Bool {
        LiteralString.equal(lhs.string, rhs.string)
    }

    /// Whether `a` and `b` have the same scalars, one for one (their UTF-8
    /// bytes are the same), unlike `==` on `String`.
    ///
    /// ```swift
    /// LiteralString.equal("\u{340}", "\u{300}")   // false; `==` says true
    /// ```
    @inlinable
    public static func equal(_ a: String, _ b: String) -> Bool {
        // The same representation (one storage object, or the same small
        // string's bytes held inline) is the same scalars: a read of a key
        // that is stored as written skips the byte comparison.
        if MemoryLayout<String>.size == 16,
           unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self)
        {
            return true
        }
        let x = a.utf8.count
        guard x == b.utf8.count else { return false }
        // Native strings (all of them on Linux) are contiguous UTF-8.
        let fast = a.utf8.withContiguousStorageIfAvailable { p in
            b.utf8.withContiguousStorageIfAvailable { q -> Bool in
                if p.baseAddress == q.baseAddress { return true }
                var i = 0
                while i < x {
                    if p[i] != q[i] { return false }
                    i &+= 1
                }
                return true
            }
        }
        if let fast, let result = fast { return result }
        return a.utf8.elementsEqual(b.utf8)
    }
}

extension LiteralString: Hashable {
    /// Hashes the string's UTF-8 bytes (no normalization) and a terminator.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        LiteralString.hash(string, into: &hasher)
    }

    /// Feeds `string`'s UTF-8 bytes to `hasher`: equal under
    /// ``equal(_:_:)`` means the same hash.
    @inlinable
    public static func hash(_ string: String, into hasher: inout Hasher) {
        let utf8 = string.utf8
        let hashed: Void? = utf8.withContiguousStorageIfAvailable { p in
            hasher.combine(bytes: UnsafeRawBufferPointer(p))
        }
        if hashed == nil {
            for byte in utf8 { hasher.combine(byte) }
        }
        // A terminator (0xFF never occurs in UTF-8), as String's own hash
        // has: "ab" + "c" and "a" + "bc" in one hasher differ.
        hasher.combine(0xFF as UInt8)
    }
}

extension LiteralString: Comparable {
    /// CFString's literal order: by UTF-16 code unit, so a scalar above
    /// U+FFFF (a surrogate pair) sorts before U+E000…U+FFFF.
    @inlinable
    public static func < (lhs: LiteralString, rhs: LiteralString) -> Bool {
        LiteralString.compare(lhs.string, rhs.string) < 0
    }

    /// -1, 0 or 1 as `a` sorts before, with or after `b` in CFString's
    /// literal (UTF-16 code unit) order.
    @inlinable
    public static func compare(_ a: String, _ b: String) -> Int {
        let fast = a.utf8.withContiguousStorageIfAvailable { p in
            b.utf8.withContiguousStorageIfAvailable { q in compareUTF8(p, q) }
        }
        if let fast, let result = fast { return result }
        return Array(a.utf8).withUnsafeBufferPointer { p in
            Array(b.utf8).withUnsafeBufferPointer { q in compareUTF8(p, q) }
        }
    }

    @inlinable
    static func compareUTF8(_ p: UnsafeBufferPointer<UInt8>, _ q: UnsafeBufferPointer<UInt8>) -> Int {
        let n = Swift.min(p.count, q.count)
        var i = 0
        while i < n {
            let x = p[i], y = q[i]
            if x != y {
                // UTF-8 byte order is scalar order; UTF-16 differs only
                // between a four-byte scalar (a surrogate pair, D800…) and a
                // three-byte one from U+E000 (lead byte EE or EF).
                if x >= 0xF0, y == 0xEE || y == 0xEF { return -1 }
                if y >= 0xF0, x == 0xEE || x == 0xEF { return 1 }
                return x < y ? -1 : 1
            }
            i &+= 1
        }
        return p.count == q.count ? 0 : (p.count < q.count ? -1 : 1)
    }
}

extension LiteralString: ExpressibleByStringLiteral {
    /// A literal string: `let key: LiteralString = "Volume"`.
    @inlinable
    public init(stringLiteral value: String) { self.string = value }
}

extension LiteralString: CustomStringConvertible, CustomDebugStringConvertible {
    /// The string itself.
    public var description: String { string }
    /// The string, quoted, with its scalars written out when it has any
    /// beyond ASCII (so that two keys that look alike can be told apart).
    public var debugDescription: String {
        if string.utf8.allSatisfy({ $0 < 0x80 }) { return string.debugDescription }
        let scalars = string.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }
        return "\(string.debugDescription) [\(scalars.joined(separator: " "))]"
    }
}

extension LiteralString: Codable {
    /// Decodes a string.
    public init(from decoder: any Decoder) throws {
        self.string = try decoder.singleValueContainer().decode(String.self)
    }
    /// Encodes the string.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(string)
    }
}

extension Dictionary where Key == LiteralString {
    /// The value of the key whose scalars are exactly `key`'s.
    ///
    /// ```swift
    /// var d: [LiteralString: PropertyList] = [:]
    /// d["caf\u{E9}"] = 1
    /// d["cafe\u{301}"]       // nil: another key
    /// ```
    @inlinable
    public subscript(_ key: String) -> Value? {
        get { self[LiteralString(key)] }
        set { self[LiteralString(key)] = newValue }
    }

    /// The value of `key`, or `defaultValue` when absent.
    @inlinable
    public subscript(_ key: String, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[LiteralString(key), default: defaultValue()] }
        set { self[LiteralString(key)] = newValue }
    }

    /// Removes the key whose scalars are exactly `key`'s; returns its value.
    @inlinable
    @discardableResult
    public mutating func removeValue(forKey key: String) -> Value? {
        removeValue(forKey: LiteralString(key))
    }

    /// Sets `value` for the key whose scalars are exactly `key`'s; returns
    /// the value it replaced.
    @inlinable
    @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: String) -> Value? {
        updateValue(value, forKey: LiteralString(key))
    }
}

extension Set where Element == LiteralString {
    /// Whether the set holds a string whose scalars are exactly `string`'s.
    @inlinable
    public func contains(_ string: String) -> Bool { contains(LiteralString(string)) }

    /// Inserts the literal identity of `string`.
    @inlinable
    @discardableResult
    public mutating func insert(_ string: String) -> (inserted: Bool, memberAfterInsert: LiteralString) {
        insert(LiteralString(string))
    }
}

extension Dictionary where Key == LiteralString {
    /// The same entries keyed by `String`, transformed, for an API typed
    /// `[String: …]` (Foundation's edge).
    ///
    /// `String` cannot hold two keys that are canonically equivalent: such
    /// keys become one there, with the value of the key that sorts last in
    /// literal order (the result does not depend on hashing). Keep the
    /// literal dictionary wherever both keys matter.
    ///
    /// ```swift
    /// let d: [LiteralString: PropertyList] = ["caf\u{E9}": 1, "cafe\u{301}": 2]
    /// d.keyedByString { $0 }.count   // 1: String sees one key
    /// ```
    public func keyedByString<T>(_ transform: (Value) throws -> T) rethrows -> [String: T] {
        var out = [String: T](minimumCapacity: count)
        var collided = false
        for (key, value) in self {
            if out.updateValue(try transform(value), forKey: key.string) != nil { collided = true }
        }
        guard collided else { return out }
        out.removeAll(keepingCapacity: true)
        for key in keys.sorted() { out[key.string] = try transform(self[key]!) }
        return out
    }

    /// Whether two keys are canonically equivalent (one key to `String`).
    public var hasEquivalentKeys: Bool {
        var seen = Set<String>(minimumCapacity: count)
        for key in keys where !seen.insert(key.string).inserted { return true }
        return false
    }
}

extension LiteralString: CodingKeyRepresentable {
    /// The string as a coding key: a `[LiteralString: Value]` encodes as a
    /// keyed container, as `[String: Value]` does.
    public var codingKey: any CodingKey { LiteralCodingKey(string) }

    /// The coding key's string.
    public init?<T: CodingKey>(codingKey: T) { self.init(codingKey.stringValue) }
}
