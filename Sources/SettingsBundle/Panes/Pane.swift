public import PropertyList

/// One page of settings: a `Root.plist` or a child pane's plist.
///
/// ```swift
/// let bundle = try SettingsBundle(path: "Settings.bundle")
/// for specifier in bundle.root.specifiers where specifier.kind == .toggleSwitch {
///     print(specifier.key ?? "")
/// }
/// ```
public struct Pane: Sendable, Hashable {
    /// The pane's path relative to the bundle, such as `Root.plist` or `Licenses/MIT.plist`.
    public let file: String
    /// `Title`: the pane's title (a key into its strings table).
    public let title: String?
    /// The strings table that localizes the pane: `StringsTable`, else the
    /// pane file's name without `.plist` (`Root` for `Root.plist`).
    public let stringsTable: String
    /// `ApplicationGroupContainerIdentifier`: the suite (app group) the values belong to.
    public let applicationGroupContainerIdentifier: String?
    /// `PreferenceSpecifiers`, in order. Entries that are not dictionaries are
    /// left out here and reported by validation.
    public let specifiers: [Specifier]
    /// The index in `PreferenceSpecifiers` of each entry of ``specifiers``.
    public let specifierIndices: [Int]
    /// The pane's whole dictionary, exactly as read.
    public let properties: [LiteralString: PropertyList]

    /// Reads a pane from its dictionary, recording what does not fit the schema in `problems`.
    init(file: String, dictionary: [LiteralString: PropertyList], problems: inout [SettingsProblem]) {
        self.file = file
        self.properties = dictionary
        self.title = dictionary["Title"]?.stringValue
        let base = file.hasSuffix(".plist") ? String(file.dropLast(6)) : file
        let lastComponent = base.split(separator: "/").last.map(String.init) ?? base
        self.stringsTable = dictionary["StringsTable"]?.stringValue ?? lastComponent
        self.applicationGroupContainerIdentifier = dictionary["ApplicationGroupContainerIdentifier"]?.stringValue
        var specifiers: [Specifier] = []
        var indices: [Int] = []
        if case .array(let entries)? = dictionary["PreferenceSpecifiers"] {
            for (index, entry) in entries.enumerated() {
                guard case .dictionary(let properties) = entry else {
                    problems.append(SettingsProblem(.error, file: file, index: index,
                        "specifier is not a dictionary (it is \(entry.typeName))"))
                    continue
                }
                specifiers.append(Specifier(properties: properties))
                indices.append(index)
            }
        }
        self.specifiers = specifiers
        self.specifierIndices = indices
    }
}


extension PropertyList {
    /// The value for a message: strings quoted, so `'0'` and `0` differ.
    var messageText: String {
        if case .string(let s) = self { return "'\(s)'" }
        return description
    }
}
