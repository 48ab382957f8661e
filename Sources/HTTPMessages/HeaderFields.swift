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
        guard a.utf8.count == b.utf8.count else { return false }
        // Byte by byte on the strings' own storage (every request looks up a few names among
        // its fields; a zip of the two UTF-8 views was a visible part of a request's cost).
        let same = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                for i in 0..<x.count where lower(x[i]) != lower(y[i]) { return false }
                return true
            }
        }
        return (same ?? nil) ?? zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
    }

    private static func lower(_ c: UInt8) -> UInt8 {
        c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") ? c + 32 : c
    }
}
