import PropertyList

/// The checks on one specifier against Apple's Settings Application Schema.
enum SpecifierValidation {
    static func check(_ s: Specifier, file: String, index: Int, problems: inout [SettingsProblem]) {
        func report(_ severity: SettingsProblem.Severity, _ message: String) {
            problems.append(SettingsProblem(severity, file: file, index: index, key: s.key, message))
        }
        switch s.kind {
        case .missing:
            report(.error, "specifier has no Type; expected one of Apple's PS…Specifier types")
            return
        case .foreign(let name):
            report(.note, "\(name) is not part of Apple's Settings schema; kept, but the Settings app does not show it")
            return
        default: break
        }
        if let key = s.properties["Key"], key.stringValue == nil {
            report(.error, "Key is \(key.typeName); expected a string")
        } else if s.kind.requiresKey, s.key?.isEmpty ?? true {
            report(.error, "\(s.kind) has no Key; expected the defaults key it reads and writes")
        }
        if s.kind.requiresKey, s.kind != .textField, s.defaultValue == nil {
            report(.note, "\(s.kind) has no DefaultValue (the schema requires one)")
        }
        switch s.kind {
        case .multiValue, .radioGroup, .titleValue:
            checkValueList(s, report: report)
        case .toggleSwitch:
            checkToggle(s, report: report)
        case .slider:
            checkSlider(s, report: report)
        case .childPane:
            if s.childPanePath == nil {
                let custom = s.properties["IASKViewControllerClass"] != nil || s.properties["IASKSegueIdentifier"] != nil
                report(custom ? .note : .error,
                       custom ? "child pane shown by custom code (no File)" : "PSChildPaneSpecifier has no File; expected the child pane's plist name")
            }
        default: break
        }
    }

    static func checkValueList(_ s: Specifier, report: (SettingsProblem.Severity, String) -> Void) {
        let values = s.properties["Values"]
        let titles = s.properties["Titles"]
        if let values, values.arrayValue == nil { report(.error, "Values is \(values.typeName); expected an array") }
        if let titles, titles.arrayValue == nil { report(.error, "Titles is \(titles.typeName); expected an array") }
        if s.kind != .titleValue, values == nil || titles == nil, s.properties["IASKListGroupSpecifier"] == nil {
            report(.error, "\(s.kind) needs both Titles and Values")
        }
        if let v = values?.arrayValue, let t = titles?.arrayValue, v.count != t.count {
            report(.error, "Titles has \(t.count) entries but Values has \(v.count); expected one title per value")
        }
        if let short = s.properties["ShortTitles"]?.arrayValue, let v = values?.arrayValue, short.count != v.count {
            report(.warning, "ShortTitles has \(short.count) entries but Values has \(v.count)")
        }
        if s.kind != .titleValue, let dv = s.defaultValue, let v = values?.arrayValue, !v.contains(where: { Specifier.valuesMatch($0, dv) }) {
            report(.warning, "DefaultValue \(dv.messageText) is not among Values")
        }
    }

    static func checkToggle(_ s: Specifier, report: (SettingsProblem.Severity, String) -> Void) {
        guard let dv = s.defaultValue else { return }
        if s.trueValue != nil || s.falseValue != nil {
            let on = s.trueValue ?? .boolean(true)
            let off = s.falseValue ?? .boolean(false)
            if !Specifier.valuesMatch(dv, on), !Specifier.valuesMatch(dv, off) {
                report(.warning, "DefaultValue \(dv.messageText) matches neither TrueValue \(on.messageText) nor FalseValue \(off.messageText)")
            }
        } else {
            switch dv {
            case .boolean: break
            case .integer(let i) where i == 0 || i == 1: break
            case .string(let t) where ["YES", "NO", "true", "false", "1", "0"].contains(t): break
            default: report(.warning, "DefaultValue \(dv.messageText) is not a boolean and there is no TrueValue/FalseValue")
            }
        }
    }

    static func checkSlider(_ s: Specifier, report: (SettingsProblem.Severity, String) -> Void) {
        guard let lo = s.minimumValue, let hi = s.maximumValue else {
            report(.error, "slider needs MinimumValue and MaximumValue (numbers)")
            return
        }
        if lo > hi { report(.error, "MinimumValue \(lo) is greater than MaximumValue \(hi)") }
        if let dv = s.defaultValue {
            if let d = dv.doubleValue {
                if d < lo || d > hi { report(.warning, "DefaultValue \(dv.messageText) is outside [MinimumValue, MaximumValue] = [\(lo), \(hi)]") }
            } else {
                report(.warning, "DefaultValue \(dv.messageText) is not a number")
            }
        }
    }
}
