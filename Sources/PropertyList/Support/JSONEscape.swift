/// JSON strings' escapes (RFC 8259 §7): the byte each one-letter escape
/// stands for, and a string written with its escapes.
///
/// ```swift
/// JSONEscape.byte(for: UInt8(ascii: "n"))   // 0x0A
/// JSONEscape.byte(for: UInt8(ascii: "u"))   // nil: \u is followed by four hex digits
/// var out: [UInt8] = []
/// JSONEscape.appendQuoted("a/\"b\"", to: &out, escapingSlash: false)   // "a/\"b\""
/// ```
package enum JSONEscape {
    /// The byte `\` followed by `letter` stands for; nil for `u` and for anything that is no escape.
    package static func byte(for letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): letter
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// Appends `text` as a JSON string: quote, backslash and control characters
    /// escaped (`\n`, `\u001f`), `/` as `\/` when `escapingSlash` (what
    /// macOS's `plutil` writes), everything else as UTF-8.
    package static func appendQuoted(_ text: String, to out: inout [UInt8], escapingSlash: Bool) {
        appendQuoted(text, into: &out, escapingSlash: escapingSlash)
    }

    /// ``appendQuoted(_:to:escapingSlash:)`` for any byte sink.
    static func appendQuoted<O: ByteAppending & ~Copyable>(_ text: String, into out: inout O, escapingSlash: Bool) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Runs of bytes that need no escape are copied whole.
            var start = 0
            for k in 0..<bytes.count {
                let c = bytes[k]
                guard c < 0x20 || c == 0x22 || c == 0x5C || (c == 0x2F && escapingSlash) else { continue }
                out.append(bytes: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<k]))
                start = k + 1
                switch c {
                case 0x22: out.append(ascii: "\\\"")
                case 0x5C: out.append(ascii: "\\\\")
                case 0x2F: out.append(ascii: "\\/")
                case 0x0A: out.append(ascii: "\\n")
                case 0x0D: out.append(ascii: "\\r")
                case 0x09: out.append(ascii: "\\t")
                case 0x08: out.append(ascii: "\\b")
                case 0x0C: out.append(ascii: "\\f")
                default:
                    out.append(ascii: "\\u00")
                    out.append(ASCII.hexDigits[Int(c >> 4)])
                    out.append(ASCII.hexDigits[Int(c & 0xF)])
                }
            }
            out.append(bytes: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
