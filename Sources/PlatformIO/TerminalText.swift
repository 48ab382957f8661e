/// Text from elsewhere (a server, another user's file, a profile) made safe to
/// print to a terminal: control characters (C0, C1 — which covers CSI and
/// OSC —, DEL) and bidirectional overrides are written as `\u{1B}`-style
/// escapes, so that a value cannot move the cursor, set the clipboard or the
/// title, change colours, ring the bell, reorder what is shown or forge a
/// line of the tool's own output. Every tool prints text it did not write
/// itself through this one function.
///
/// ```swift
/// TerminalText.safe("bank\u{1B}[2J")          // "bank\u{1B}[2J" printed as text
/// TerminalText.safe("a\nb", keepingNewlines: true)   // "a\nb"
/// ```
package enum TerminalText {
    /// The characters that reorder text on screen (Unicode's Bidi_Control):
    /// a key or name holding U+202E would show other text than it is.
    package static func isBidiControl(_ v: UInt32) -> Bool {
        v == 0x061C || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    /// `text` with C0 and C1 control characters, DEL, the line and paragraph
    /// separators and the bidirectional controls escaped; newlines and
    /// tabs are kept when `keepingNewlines` (multi-line values), escaped
    /// otherwise (names and keys, which are one line).
    package static func safe(_ text: String, keepingNewlines: Bool = false) -> String {
        func isControl(_ v: UInt32) -> Bool {
            if keepingNewlines, v == 0x0A || v == 0x09 { return false }
            return v < 0x20 || (v >= 0x7F && v < 0xA0) || v == 0x2028 || v == 0x2029 || isBidiControl(v)
        }
        guard text.unicodeScalars.contains(where: { isControl($0.value) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar.value) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
