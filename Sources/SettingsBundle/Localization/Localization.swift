public import PropertyList

/// The string tables of one `.lproj` folder: table name → key → text.
///
/// Tables are `.strings` files (old-style text in UTF-8 or UTF-16) or
/// binary or XML property lists, as Xcode may compile them.
public struct Localization: Sendable, Hashable {
    /// The folder's language name without `.lproj`: `en`, `pt-BR`, `German`, `Base`.
    public let language: String
    /// Each table's entries, by table name (the file name without `.strings`).
    public let tables: [String: [LiteralString: String]]

    /// Creates a localization from its tables.
    public init(language: String, tables: [String: [LiteralString: String]]) {
        self.language = language
        self.tables = tables
    }

    /// The text for `key` in `table`, when the table has it.
    public func string(_ key: String, table: String) -> String? { tables[table]?[key] }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
    var replacingHyphens: String { String(map { $0 == "-" ? "_" : $0 }) }
}
