extension String {
    /// The text with `&`, `<`, `>`, `"` and `'` replaced by character
    /// references: safe inside element content and quoted attribute values.
    ///
    /// ```swift
    /// "<script>".htmlEscaped  // "&lt;script&gt;"
    /// ```
    package var htmlEscaped: String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\0": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
