import PropertyList

/// An `application/x-www-form-urlencoded` body or query string, decoded.
///
/// ```swift
/// let form = FormData(urlEncoded: "a=1&b=x+y&c=%3C")
/// form["b"]  // "x y"
/// ```
package struct FormData: Sendable {
    /// The fields in order; a name may repeat.
    package let fields: [(name: String, value: String)]

    /// The first value of `name`.
    package subscript(name: String) -> String? { fields.first { LiteralString.equal($0.name, name) }?.value }

    /// Whether a field `name` was sent.
    package func contains(_ name: String) -> Bool { fields.contains { LiteralString.equal($0.name, name) } }

    /// Creates form data from fields.
    package init(fields: [(name: String, value: String)]) { self.fields = fields }

    /// Decodes `name=value&…` (`+` is a space; `%XX` bytes are UTF-8, invalid
    /// sequences become U+FFFD).
    package init(urlEncoded text: String) {
        var fields: [(String, String)] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            fields.append((Self.decode(parts[0]), parts.count > 1 ? Self.decode(parts[1]) : ""))
        }
        self.fields = fields
    }

    /// The fields as `name=value&…`, every byte but letters, digits and
    /// `-._~` escaped as `%XX`: what ``init(urlEncoded:)`` reads back.
    package static func encode(_ form: FormData) -> String {
        form.fields.map { $0.name.urlQueryEncoded + "=" + $0.value.urlQueryEncoded }.joined(separator: "&")
    }

    /// Decodes one `%XX`-escaped component (`+` is a space).
    package static func decode(_ s: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count)
        var i = s.utf8.startIndex
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        let utf8 = s.utf8
        while i < utf8.endIndex {
            let c = utf8[i]
            if c == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if c == UInt8(ascii: "%"), let j = utf8.index(i, offsetBy: 2, limitedBy: utf8.endIndex), j < utf8.endIndex,
                      let hi = hex(utf8[utf8.index(after: i)]), let lo = hex(utf8[j])
            {
                bytes.append(hi << 4 | lo)
                i = j
            } else {
                bytes.append(c)
            }
            i = utf8.index(after: i)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

}
