public import PropertyList

/// One entry of a pane's `PreferenceSpecifiers`: a control, a group or a
/// link to a child pane.
///
/// Every key of Apple's schema has a typed accessor; the whole dictionary
/// stays in ``properties``, so keys from elsewhere (InAppSettingsKit's) are
/// never lost.
///
/// ```swift
/// let toggle = Specifier(properties: [
///     "Type": "PSToggleSwitchSpecifier", "Key": "warp",
///     "DefaultValue": "Engaged", "TrueValue": "Engaged", "FalseValue": "Disabled",
/// ])
/// toggle.kind          // .toggleSwitch
/// toggle.defaultValue  // "Engaged"
/// ```
public struct Specifier: Sendable, Hashable {
    /// The specifier's dictionary, exactly as read.
    public let properties: [LiteralString: PropertyList]
    /// What the specifier is, from its `Type`.
    public let kind: SpecifierKind

    /// Creates a specifier from its dictionary.
    public init(properties: [LiteralString: PropertyList]) {
        self.properties = properties
        self.kind = SpecifierKind(type: properties["Type"]?.stringValue)
    }

    private func string(_ name: String) -> String? { properties[name]?.stringValue }
    private func strings(_ name: String) -> [String]? {
        guard case .array(let items)? = properties[name] else { return nil }
        return items.map { $0.stringValue ?? $0.description }
    }
    private func flag(_ name: String) -> Bool? {
        switch properties[name] {
        case .boolean(let b)?: b
        case .integer(let i)?: i != 0
        case .string(let s)?: ["yes", "true", "1"].contains(s.lowercased())
        default: nil
        }
    }
    private func number(_ name: String) -> Double? {
        switch properties[name] {
        case .integer(let i)?: i.doubleValue
        case .real(let r)?: r
        case .string(let s)?: Double(s)
        default: nil
        }
    }

    // MARK: - Every specifier

    /// `Type`, as written (nil when absent).
    public var type: String? { string("Type") }
    /// `Title`: the label, a key into the pane's strings table.
    public var title: String? { string("Title") }
    /// `Key`: the defaults key the control reads and writes.
    public var key: String? { string("Key") }
    /// `DefaultValue`: the value registered for ``key``.
    public var defaultValue: PropertyList? { properties["DefaultValue"] }
    /// `SupportedUserInterfaceIdioms`: the idioms (`Phone`, `Pad`…) that show
    /// the specifier; nil for all.
    public var supportedUserInterfaceIdioms: [String]? { strings("SupportedUserInterfaceIdioms") }

    /// Whether the specifier is shown on `idiom` (`"Phone"`, `"Pad"`…).
    public func isSupported(on idiom: String) -> Bool {
        guard let idioms = supportedUserInterfaceIdioms else { return true }
        return idioms.contains(idiom)
    }

    // MARK: - Group

    /// `FooterText` of a group.
    public var footerText: String? { string("FooterText") }

    // MARK: - Text field

    /// `IsSecure`: the field hides what is typed.
    public var isSecure: Bool { flag("IsSecure") ?? false }
    /// `KeyboardType`: `Alphabet`, `NumbersAndPunctuation`, `NumberPad`, `URL`, `EmailAddress`.
    public var keyboardType: String? { string("KeyboardType") }
    /// `AutocapitalizationType`: `None`, `Sentences`, `Words`, `AllCharacters`.
    public var autocapitalizationType: String? { string("AutocapitalizationType") }
    /// `AutocorrectionType`: `Default`, `No`, `Yes`.
    public var autocorrectionType: String? { string("AutocorrectionType") }

    // MARK: - Toggle switch

    /// `TrueValue`: stored when the switch is on (nil: boolean true).
    public var trueValue: PropertyList? { properties["TrueValue"] }
    /// `FalseValue`: stored when the switch is off (nil: boolean false).
    public var falseValue: PropertyList? { properties["FalseValue"] }
    /// The value stored for the switch's state: `TrueValue`/`FalseValue`, else a boolean.
    public func storedValue(isOn: Bool) -> PropertyList {
        (isOn ? trueValue : falseValue) ?? .boolean(isOn)
    }
    /// Whether a stored value means "on": equal to `TrueValue` when there is
    /// one, else a true boolean (or a number other than zero).
    public func isOn(_ value: PropertyList?) -> Bool {
        guard let value else { return false }
        if let trueValue { return Self.valuesMatch(value, trueValue) }
        if let falseValue, Self.valuesMatch(value, falseValue) { return false }
        switch value {
        case .boolean(let b): return b
        case .integer(let i): return i != 0
        case .real(let r): return r != 0
        case .string(let s): return ["yes", "true", "1"].contains(s.lowercased())
        default: return false
        }
    }

    // MARK: - Slider

    /// `MinimumValue` of a slider.
    public var minimumValue: Double? { number("MinimumValue") }
    /// `MaximumValue` of a slider.
    public var maximumValue: Double? { number("MaximumValue") }
    /// `MinimumValueImage`: an image file in the bundle, shown at the low end.
    public var minimumValueImage: String? { string("MinimumValueImage") }
    /// `MaximumValueImage`: an image file in the bundle, shown at the high end.
    public var maximumValueImage: String? { string("MaximumValueImage") }

    // MARK: - Multi-value, radio group, title value

    /// `Titles`: what the user sees for each of ``values`` (keys into the strings table).
    public var titles: [String]? { strings("Titles") }
    /// `ShortTitles`: shorter titles for the summary row.
    public var shortTitles: [String]? { strings("ShortTitles") }
    /// `Values`: the values that may be stored.
    public var values: [PropertyList]? {
        guard case .array(let items)? = properties["Values"] else { return nil }
        return items
    }
    /// `DisplaySortedByTitle`: list the choices sorted by their titles.
    public var displaySortedByTitle: Bool { flag("DisplaySortedByTitle") ?? false }

    /// The title shown for `value`: its entry in ``titles``, else nil.
    public func title(for value: PropertyList?) -> String? {
        guard let value, let titles, let index = index(of: value), index < titles.count else { return nil }
        return titles[index]
    }

    /// The index of `value` in ``values``, matched as the Settings app matches
    /// (``valuesMatch(_:_:)``).
    public func index(of value: PropertyList) -> Int? {
        values?.firstIndex { Self.valuesMatch($0, value) }
    }

    /// Whether two values are the same setting, as `-[NSObject isEqual:]`
    /// decides in the Settings app: numbers and booleans compare by value
    /// (`true` is `1` is `1.0`); everything else must be equal.
    ///
    /// ```swift
    /// Specifier.valuesMatch(true, 1)   // true
    /// Specifier.valuesMatch("1", 1)    // false
    /// ```
    public static func valuesMatch(_ a: PropertyList, _ b: PropertyList) -> Bool {
        func number(_ v: PropertyList) -> Double? {
            switch v {
            case .boolean(let x): x ? 1 : 0
            case .integer(let x): x.doubleValue
            case .real(let x): x
            default: nil
            }
        }
        if let x = number(a), let y = number(b) {
            if case .integer(let i) = a, case .integer(let j) = b { return i == j }
            return x == y
        }
        return a == b
    }

    // MARK: - Child pane

    /// `File`: the child pane's plist name, without `.plist`, relative to the bundle.
    public var file: String? { string("File") }

    /// The child pane's path relative to the bundle (`File` plus `.plist`).
    public var childPanePath: String? {
        guard kind == .childPane, let file, !file.isEmpty else { return nil }
        return file.hasSuffix(".plist") ? file : file + ".plist"
    }
}
