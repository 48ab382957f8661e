package import UbiquityProtocol
import PropertyList

/// The JSON of the commit path, written and read by hand.
///
/// A commit's request and answer went through Foundation's `JSONDecoder` and
/// `JSONEncoder`: an eighth of the server's CPU per write. The answers here
/// are the encoder's JSON (sorted keys, absent optionals left out, `/` not
/// escaped, which JSON allows either way). The request reader is a fast path
/// for the shape clients send — `{"changes":[{"key":…,"base":…,"value":…}]}`,
/// keys in any order, whitespace anywhere, the escapes `JSONEncoder` writes —
/// and gives up (nil) on anything else: unknown or repeated keys, `\u`
/// escapes, numbers with a fraction or an exponent, malformed input. The
/// caller then asks `JSONDecoder`, so every request decodes (or is refused,
/// with the decoder's message) exactly as before.
package enum WireJSON {
    // MARK: Writing

    /// The JSON of a commit's answer.
    package static func encode(_ response: UbiquityCommitResponse) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + response.results.count * 96)
        out.append(UInt8(ascii: "{"))
        if let refusal = response.refusal {
            out.append(contentsOf: #""refusal":"#.utf8)
            string(refusal, into: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: #""results":["#.utf8)
        for (i, result) in response.results.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"entry":"#.utf8)
            entry(result.entry, into: &out)
            out.append(contentsOf: #","status":"#.utf8)
            string(result.status.rawValue, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: #"],"revision":"#.utf8)
        out.append(contentsOf: String(response.revision).utf8)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The JSON of a changes answer (a long poll's, an event's data).
    package static func encode(_ response: UbiquityChangesResponse) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + response.entries.count * 80)
        out.append(contentsOf: #"{"complete":"#.utf8)
        out.append(contentsOf: (response.complete ? "true" : "false").utf8)
        out.append(contentsOf: #","entries":["#.utf8)
        for (i, e) in response.entries.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            entry(e, into: &out)
        }
        out.append(contentsOf: #"],"revision":"#.utf8)
        out.append(contentsOf: String(response.revision).utf8)
        out.append(UInt8(ascii: "}"))
        return out
    }

    static func entry(_ entry: UbiquityWireEntry, into out: inout [UInt8]) {
        UbiquityWireJSON.appendObject(key: entry.key, "revision", entry.revision, value: entry.value, to: &out)
    }

    /// A JSON string (JSONEncoder's escapes; `/` as it is).
    static func string(_ text: String, into out: inout [UInt8]) {
        JSONEscape.appendQuoted(text, to: &out, escapingSlash: false)
    }

    // MARK: Reading

    /// A commit request of the usual shape; nil when the input is anything
    /// else (the caller asks `JSONDecoder`, which decides and explains).
    package static func commitRequest(_ bytes: [UInt8]) -> UbiquityCommitRequest? {
        bytes.withUnsafeBytes { raw in
            var reader = Reader(bytes: raw)
            return reader.commitRequest()
        }
    }

    /// A forward-only reader over the request's bytes; every method returns
    /// nil (or false) where the input leaves the fast path.
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var i = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func commitRequest() -> UbiquityCommitRequest? {
            guard take("{"), let name = string(), name == "changes", take(":"), take("[") else { return nil }
            var changes: [UbiquityWireChange] = []
            if !take("]") {
                repeat {
                    guard let change = change() else { return nil }
                    changes.append(change)
                } while take(",")
                guard take("]") else { return nil }
            }
            guard take("}") else { return nil }
            skipSpace()
            guard i == bytes.count else { return nil }
            return UbiquityCommitRequest(changes: changes)
        }

        mutating func change() -> UbiquityWireChange? {
            guard take("{") else { return nil }
            var key: String?, base: Int64?, value: String?, sawValue = false
            repeat {
                guard let name = string(), take(":") else { return nil }
                switch name {
                case "key" where key == nil: key = string()
                    if key == nil { return nil }
                case "base" where base == nil: base = integer()
                    if base == nil { return nil }
                case "value" where !sawValue:
                    sawValue = true
                    if !literalNull() {
                        value = string()
                        if value == nil { return nil }
                    }
                default: return nil
                }
            } while take(",")
            guard take("}"), let key, let base else { return nil }
            return UbiquityWireChange(key: key, base: base, value: value)
        }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        }

        /// Takes `c` after any whitespace.
        mutating func take(_ c: Unicode.Scalar) -> Bool {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: c) else { return false }
            i += 1
            return true
        }

        mutating func literalNull() -> Bool {
            skipSpace()
            guard bytes.count - i >= 4, bytes[i] == UInt8(ascii: "n"), bytes[i + 1] == UInt8(ascii: "u"),
                  bytes[i + 2] == UInt8(ascii: "l"), bytes[i + 3] == UInt8(ascii: "l") else { return false }
            i += 4
            return true
        }

        /// A string with no escapes but `\" \\ \/ \b \f \n \r \t`, valid UTF-8.
        mutating func string() -> String? {
            guard take("\"") else { return nil }
            let start = i
            // The bytes' union: below 0x80 when the text is ASCII, which is UTF-8 as it is.
            var union: UInt8 = 0
            while i < bytes.count, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\"), bytes[i] >= 0x20 { union |= bytes[i]; i += 1 }
            guard i < bytes.count else { return nil }
            if bytes[i] == UInt8(ascii: "\"") {
                defer { i += 1 }
                let text = UnsafeRawBufferPointer(rebasing: bytes[start..<i])
                // ASCII needs no check (`String(validating:)` went through the generic path, a
                // run-time metadata lookup per string).
                return union < 0x80 ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            }
            // Escapes: the text so far, then byte by byte.
            var text = Array(bytes[start..<i])
            while i < bytes.count {
                let b = bytes[i]
                i += 1
                switch b {
                case UInt8(ascii: "\""): return String(validating: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard i < bytes.count else { return nil }
                    let escaped = bytes[i]
                    i += 1
                    // `\u` is left to JSONDecoder.
                    guard let byte = JSONEscape.byte(for: escaped) else { return nil }
                    text.append(byte)
                case 0..<0x20: return nil
                default: text.append(b)
                }
            }
            return nil
        }

        /// An integer without fraction or exponent that fits in 64 bits.
        mutating func integer() -> Int64? {
            skipSpace()
            var negative = false
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 }
            let start = i
            var value: Int64 = 0
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                let digit = Int64(bytes[i] - 0x30)
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let (sum, o2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                guard !o1, !o2 else { return nil }
                value = sum
                i += 1
            }
            let digits = i - start
            guard digits > 0, !(digits > 1 && bytes[start] == 0x30) else { return nil }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") { return nil }
            return value
        }
    }
}
