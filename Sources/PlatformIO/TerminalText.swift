/// Text from elsewhere (a server, another user's file) made safe to print to
/// a terminal: control characters are written as `\u{1B}`-style escapes, so
/// that a value cannot move the cursor, change colours, ring the bell or
/// forge a line of the tool's own output.
///
/// ```swift
/// TerminalText.safe("bank\u{1B}[2J")          // "bank\u{1B}[2J" printed as text
/// TerminalText.safe("a\nb", keepingNewlines: true)   // "a\nb"
/// ```
package enum TerminalText {
    /// `text` with C0 and C1 control characters and DEL escaped; newlines and
    /// tabs are kept when `keepingNewlines` (multi-line values), escaped
    /// otherwise (names and keys, which are one line).
    package static func safe(_ text: String, keepingNewlines: Bool = false) -> String {
        func isControl(_ v: UInt32) -> Bool {
            if keepingNewlines, v == 0x0A || v == 0x09 { return false }
            return v < 0x20 || (v >= 0x7F && v < 0xA0) || v == 0x2028 || v == 0x2029
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
