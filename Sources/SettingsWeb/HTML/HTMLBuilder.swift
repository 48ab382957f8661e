/// Builds an HTML document: text is escaped unless added with ``raw(_:)``.
struct HTMLBuilder {
    private(set) var html = ""

    /// Adds markup written by this module (never user data).
    mutating func raw(_ markup: String) { html += markup }
    /// Adds text, escaped.
    mutating func text(_ text: String) { html += text.htmlEscaped }
}
