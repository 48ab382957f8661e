/// JSON's one-letter escapes (RFC 8259 §7): the byte each stands for.
///
/// ```swift
/// JSONEscape.byte(for: UInt8(ascii: "n"))   // 0x0A
/// JSONEscape.byte(for: UInt8(ascii: "u"))   // nil: \u is followed by four hex digits
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
}
