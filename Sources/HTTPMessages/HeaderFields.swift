/// A request's header fields in the order received, names compared without
/// regard to ASCII case (as HTTP does).
///
/// ```swift
/// let headers: HeaderFields = ["Host": "localhost:8080", "Origin": "http://localhost:8080"]
/// headers["host"]  // "localhost:8080"
/// ```
package struct HeaderFields: Sendable, ExpressibleByDictionaryLiteral {
    /// The fields in order; a name may repeat.
    package var fields: [(name: String, value: String)]

    package init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    package init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name` (any ASCII case), or nil.
    package subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Adds a field (a name given twice keeps both, in order).
    package mutating func append(_ name: String, _ value: String) { fields.append((name, value)) }

    /// HTTP field names are ASCII and case-insensitive.
    static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && hasPrefix(a, ignoringASCIICase: b)
    }

    /// Whether `text` begins with `prefix`, ASCII letters in either case (an HTTP field's name,
    /// an authorization scheme). Compared on the strings' own bytes: every request looks up a few
    /// names among its fields, and a zip of two UTF-8 views was a visible part of its cost.
    package static func hasPrefix(_ text: String, ignoringASCIICase prefix: String) -> Bool {
        guard text.utf8.count >= prefix.utf8.count else { return false }
        let same = text.utf8.withContiguousStorageIfAvailable { x in
            prefix.utf8.withContiguousStorageIfAvailable { y in
                y.indices.allSatisfy { lower(x[$0]) == lower(y[$0]) }
            }
        }
        if let same = same ?? nil { return same }
        // A string without contiguous UTF-8 (never a native one).
        return zip(text.utf8, prefix.utf8).allSatisfy { lower($0) == lower($1) }
    }

    private static func lower(_ c: UInt8) -> UInt8 {
        c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") ? c + 32 : c
    }
}
