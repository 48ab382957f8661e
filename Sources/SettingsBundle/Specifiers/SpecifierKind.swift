/// The `Type` of a preference specifier.
///
/// The eight types of Apple's Settings Application Schema are cases; any
/// other type (InAppSettingsKit's `IASKButtonSpecifier`, say) is kept as
/// ``foreign(_:)`` and reported by validation, never dropped.
///
/// ```swift
/// SpecifierKind(type: "PSToggleSwitchSpecifier")  // .toggleSwitch
/// SpecifierKind(type: "IASKButtonSpecifier")      // .foreign("IASKButtonSpecifier")
/// ```
public enum SpecifierKind: Sendable, Hashable, CustomStringConvertible {
    /// `PSGroupSpecifier`: starts a group, with a title and a footer.
    case group
    /// `PSTextFieldSpecifier`: an editable text field (secure when `IsSecure`).
    case textField
    /// `PSTitleValueSpecifier`: a read-only value, mapped through `Titles`/`Values`.
    case titleValue
    /// `PSToggleSwitchSpecifier`: an on/off switch storing `TrueValue`/`FalseValue`.
    case toggleSwitch
    /// `PSSliderSpecifier`: a slider between `MinimumValue` and `MaximumValue`.
    case slider
    /// `PSMultiValueSpecifier`: one of several values, chosen on its own page.
    case multiValue
    /// `PSRadioGroupSpecifier`: one of several values, shown inline as a group.
    case radioGroup
    /// `PSChildPaneSpecifier`: a link to another pane (`File`).
    case childPane
    /// A type outside Apple's schema, kept with its name.
    case foreign(String)
    /// A specifier without a `Type` string.
    case missing

    /// The kind named by a specifier's `Type`.
    public init(type: String?) {
        switch type {
        case nil: self = .missing
        case "PSGroupSpecifier": self = .group
        case "PSTextFieldSpecifier": self = .textField
        case "PSTitleValueSpecifier": self = .titleValue
        case "PSToggleSwitchSpecifier": self = .toggleSwitch
        case "PSSliderSpecifier": self = .slider
        case "PSMultiValueSpecifier": self = .multiValue
        case "PSRadioGroupSpecifier": self = .radioGroup
        case "PSChildPaneSpecifier": self = .childPane
        case let other?: self = .foreign(other)
        }
    }

    /// The `Type` string, as written in a pane.
    public var description: String {
        switch self {
        case .group: "PSGroupSpecifier"
        case .textField: "PSTextFieldSpecifier"
        case .titleValue: "PSTitleValueSpecifier"
        case .toggleSwitch: "PSToggleSwitchSpecifier"
        case .slider: "PSSliderSpecifier"
        case .multiValue: "PSMultiValueSpecifier"
        case .radioGroup: "PSRadioGroupSpecifier"
        case .childPane: "PSChildPaneSpecifier"
        case .foreign(let name): name
        case .missing: "<missing Type>"
        }
    }

    /// Whether Apple's schema requires a `Key` for this kind.
    public var requiresKey: Bool {
        switch self {
        case .textField, .titleValue, .toggleSwitch, .slider, .multiValue, .radioGroup: true
        case .group, .childPane, .foreign, .missing: false
        }
    }

    /// Whether the value is chosen from `Titles`/`Values`.
    public var hasValueList: Bool {
        switch self {
        case .titleValue, .multiValue, .radioGroup: true
        default: false
        }
    }

    /// Whether this kind is part of Apple's schema.
    public var isStandard: Bool {
        switch self {
        case .foreign, .missing: false
        default: true
        }
    }
}
