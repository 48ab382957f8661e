@_spi(Engine) import OpenDefaults
import PropertyList
import SettingsBundle
import HTTPMessages

/// A posted pane form, checked against the pane's specifiers: the edits it
/// asks for, or why it is refused. A refused form writes nothing.
struct PaneSubmission {
    /// The edits, by key, in pane order.
    var edits: [(key: String, value: PropertyList)] = []
    /// What is wrong, one message per field.
    var refusals: [String] = []

    /// The form field that carries the value of `key`.
    static func fieldName(_ key: String) -> String { "value:" + key }
    /// The hidden field that says a toggle for `key` was on the form (an
    /// unchecked checkbox sends nothing).
    static func toggleMarker(_ key: String) -> String { "toggle:" + key }

    init(form: FormData, pane: Pane, controller: DefaultsController, title: (String) -> String) {
        for specifier in pane.specifiers {
            guard let key = specifier.key, !key.isEmpty else { continue }
            let name = Self.fieldName(key)
            let current = controller.values[key]
            let label = title(specifier.title ?? key)
            var proposed: PropertyList?
            switch specifier.kind {
            case .textField:
                guard let text = form[name] else { continue }
                if specifier.isSecure, text.isEmpty { continue }  // an empty password field keeps the password
                if text == ValueText.text(current) { continue }
                proposed = .string(text)
            case .toggleSwitch:
                guard form.contains(Self.toggleMarker(key)) else { continue }
                let on = form.contains(name)
                if on == specifier.isOn(current) { continue }
                proposed = specifier.storedValue(isOn: on)
            case .slider:
                guard let text = form[name] else { continue }
                guard let number = Double(text), number.isFinite else {
                    refusals.append("\(label): '\(text)' is not a number")
                    continue
                }
                let lo = specifier.minimumValue ?? -.infinity, hi = specifier.maximumValue ?? .infinity
                guard number >= lo, number <= hi else {
                    refusals.append("\(label): \(ValueText.realText(number)) is outside \(ValueText.realText(lo))–\(ValueText.realText(hi))")
                    continue
                }
                if let c = current?.doubleValue, c == number { continue }
                proposed = .real(number)
            case .multiValue, .radioGroup:
                guard let text = form[name] else { continue }
                guard let value = specifier.values?.first(where: { ValueText.text($0) == text }) else {
                    refusals.append("\(label): '\(text)' is not one of its values")
                    continue
                }
                if let current, Specifier.valuesMatch(value, current) { continue }
                proposed = value
            default:
                continue
            }
            guard let proposed else { continue }
            if controller.defaults.objectIsForced(forKey: key) {
                refusals.append("\(label): managed by your administrator; it cannot be changed here")
                continue
            }
            edits.append((key, proposed))
        }
    }
}
