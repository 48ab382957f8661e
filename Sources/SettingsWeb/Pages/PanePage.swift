import ConfigurationProfiles
@_spi(Engine) import OpenDefaults
import PropertyList
import SettingsBundle
import HTTPMessages

/// One pane as iOS Settings draws it: inset groups with titles and
/// footers, text and secure fields, switches, sliders with their images,
/// multi-value lists, radio groups, title values and child-pane rows.
/// Every control is a plain form field, so editing works without JavaScript.
struct PanePage {
    let bundle: SettingsBundle
    let pane: Pane
    let domain: String
    let controller: DefaultsController
    let languages: [String]
    /// The server's form token, sent back in a hidden field (see ``AccessPolicy``).
    let formToken: String
    /// The installed configuration profiles, to name the one that forces a key.
    var profiles = ProfileIndex()
    /// The user whose managed preferences apply (for user-scoped profiles).
    var profileUser = ""
    /// The domain the pane's values live in (the bundle's app group, or the app's).
    var valuesDomain: String { controller.defaults.domainName }
    /// The page's banner: a confirmation, or the reasons a form was refused.
    var banner: (isError: Bool, title: String, lines: [String])?

    func localized(_ key: String) -> String {
        bundle.localizedString(key, table: pane.stringsTable, languages: languages)
    }

    var appPath: String { "/apps/" + domain.urlQueryEncoded }
    func panePath(_ file: String) -> String {
        file == bundle.rootFile ? appPath : appPath + "?pane=" + file.urlQueryEncoded
    }

    /// The pane that links to this one, for the back button.
    var parent: (file: String, title: String)? {
        if pane.file == bundle.rootFile { return ("", "Settings") }
        for file in bundle.paneOrder {
            guard let candidate = bundle.panes[file] else { continue }
            if candidate.specifiers.contains(where: { $0.childPanePath == pane.file }) {
                let title = candidate.title.map {
                    bundle.localizedString($0, table: candidate.stringsTable, languages: languages)
                } ?? domain
                return (file, title)
            }
        }
        return nil
    }

    func render() -> String {
        var h = HTMLBuilder()
        let title = pane.title.map(localized) ?? domain
        h.raw("<!DOCTYPE html><html lang=\"")
        h.text(bundle.bestLocalization(for: languages) ?? "en")
        h.raw("\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>")
        h.text(title)
        h.raw("</title><style>\(Stylesheet.css)</style></head><body><header class=\"nav\">")
        if let parent {
            h.raw("<a class=\"back\" id=\"back\" href=\"")
            h.text(parent.file.isEmpty ? "/" : panePath(parent.file))
            h.raw("\">‹ ")
            h.text(parent.title)
            h.raw("</a>")
        }
        h.raw("<h1>")
        h.text(title)
        h.raw("</h1></header><main>")
        if let banner {
            h.raw(banner.isError ? "<div class=\"banner error\" id=\"banner\" role=\"alert\">" : "<div class=\"banner\" id=\"banner\" role=\"status\">")
            h.text(banner.title)
            if !banner.lines.isEmpty {
                h.raw("<ul>")
                for line in banner.lines { h.raw("<li>"); h.text(line); h.raw("</li>") }
                h.raw("</ul>")
            }
            h.raw("</div>")
        }
        h.raw("<form method=\"post\" action=\"")
        h.text(panePath(pane.file))
        h.raw("\" id=\"pane\"><input type=\"hidden\" name=\"token\" value=\"")
        h.text(formToken)
        h.raw("\">")
        renderGroups(&h)
        h.raw("""
            <div class="actions"><button type="submit" name="action" value="apply" class="primary" id="apply">Apply</button>\
            <button type="submit" name="action" value="revert" id="revert">Revert</button>\
            <button type="submit" name="action" value="reset" id="reset">Reset to Defaults</button></div>
            """)
        h.raw("</form></main></body></html>\n")
        return h.html
    }

    /// Groups: a `PSGroupSpecifier` or a radio group starts one; controls
    /// before the first group go in an untitled one.
    func renderGroups(_ h: inout HTMLBuilder) {
        var open = false
        var footer: String?
        func close(_ h: inout HTMLBuilder) {
            guard open else { return }
            h.raw("</ul>")
            if let footer { h.raw("<p class=\"footer\">"); h.text(localized(footer)); h.raw("</p>") }
            h.raw("</section>")
            open = false
            footer = nil
        }
        func start(_ h: inout HTMLBuilder, title: String?, footerText: String?) {
            close(&h)
            h.raw("<section class=\"group\">")
            if let title, !title.isEmpty { h.raw("<h2>"); h.text(localized(title)); h.raw("</h2>") }
            h.raw("<ul class=\"cells\">")
            open = true
            footer = footerText
        }
        for (index, s) in pane.specifiers.enumerated() where s.isSupported(on: "Phone") {
            switch s.kind {
            case .group:
                start(&h, title: s.title, footerText: s.footerText)
                continue
            case .radioGroup:
                start(&h, title: s.title, footerText: s.footerText)
                renderRadioGroup(&h, s)
                close(&h)
                continue
            default:
                if !open { start(&h, title: nil, footerText: nil) }
            }
            renderCell(&h, s, index: index)
        }
        close(&h)
    }

    /// "Managed by your administrator", naming the configuration profile that forces `key` when one does.
    func managedNote(_ h: inout HTMLBuilder, _ forced: Bool, key: String) {
        guard forced else { return }
        let user = profileUser
        if let profile = profiles.forcingProfile(domain: valuesDomain, key: key, user: user)
            ?? profiles.forcingProfile(domain: PreferencesLayout.globalDomainName, key: key, user: user) {
            h.raw("<span class=\"managed\">Managed by your administrator: profile “\(profile.displayName.htmlEscaped)”</span>")
        } else {
            h.raw("<span class=\"managed\">Managed by your administrator</span>")
        }
    }

    func renderCell(_ h: inout HTMLBuilder, _ s: Specifier, index: Int) {
        let key = s.key ?? ""
        let value = key.isEmpty ? nil : controller.values[key]
        let forced = !key.isEmpty && controller.defaults.objectIsForced(forKey: key)
        let disabled = forced ? " disabled" : ""
        let field = PaneSubmission.fieldName(key).htmlEscaped
        let cellClass = forced ? " disabled" : ""
        switch s.kind {
        case .textField where !key.isEmpty:
            h.raw("<li class=\"text\(cellClass)\" data-key=\"\(key.htmlEscaped)\"><label class=\"label\" for=\"f\(index)\">")
            h.text(localized(s.title ?? ""))
            managedNote(&h, forced, key: key)
            h.raw("</label>")
            if s.isSecure {
                h.raw("<input type=\"password\" id=\"f\(index)\" name=\"\(field)\" autocomplete=\"new-password\" placeholder=\"\(value == nil ? "" : "••••••")\"\(disabled)>")
            } else {
                let mode = Self.inputMode(s.keyboardType)
                let caps = Self.autocapitalize(s.autocapitalizationType)
                let correct = s.autocorrectionType == "No" ? " autocorrect=\"off\" spellcheck=\"false\"" : ""
                h.raw("<input type=\"text\" id=\"f\(index)\" name=\"\(field)\" value=\"")
                h.text(ValueText.text(value))
                h.raw("\" inputmode=\"\(mode)\" autocapitalize=\"\(caps)\"\(correct)\(disabled)>")
            }
            h.raw("</li>")
        case .toggleSwitch where !key.isEmpty:
            h.raw("<li class=\"toggle\(cellClass)\" data-key=\"\(key.htmlEscaped)\"><span class=\"label\">")
            h.text(localized(s.title ?? ""))
            managedNote(&h, forced, key: key)
            h.raw("</span>")
            if !forced { h.raw("<input type=\"hidden\" name=\"\(PaneSubmission.toggleMarker(key).htmlEscaped)\" value=\"1\">") }
            h.raw("<label class=\"switch\"><input type=\"checkbox\" role=\"switch\" id=\"f\(index)\" name=\"\(field)\" value=\"on\"")
            h.raw(s.isOn(value) ? " checked" : "")
            h.raw("\(disabled) aria-label=\"")
            h.text(localized(s.title ?? key))
            h.raw("\"><span></span></label></li>")
        case .slider where !key.isEmpty:
            h.raw("<li class=\"slider\(cellClass)\" data-key=\"\(key.htmlEscaped)\">")
            if let image = s.minimumValueImage { imageTag(&h, image) }
            let lo = s.minimumValue ?? 0, hi = s.maximumValue ?? 1
            h.raw("<input type=\"range\" id=\"f\(index)\" name=\"\(field)\" min=\"\(ValueText.realText(lo))\" max=\"\(ValueText.realText(hi))\" step=\"any\" value=\"")
            h.text(ValueText.realText(value?.doubleValue ?? lo))
            h.raw("\"\(disabled) aria-label=\"")
            h.text(localized(s.title ?? key))
            h.raw("\">")
            if let image = s.maximumValueImage { imageTag(&h, image) }
            managedNote(&h, forced, key: key)
            h.raw("</li>")
        case .multiValue where !key.isEmpty:
            h.raw("<li class=\"multi\(cellClass)\" data-key=\"\(key.htmlEscaped)\"><details id=\"f\(index)\"><summary><span class=\"label\">")
            h.text(localized(s.title ?? ""))
            managedNote(&h, forced, key: key)
            h.raw("</span><span class=\"value\">")
            let shown = s.shortTitles.flatMap { shorts -> String? in
                guard let value, let i = s.index(of: value), i < shorts.count else { return nil }
                return shorts[i]
            } ?? s.title(for: value)
            h.text(shown.map(localized) ?? ValueText.text(value))
            h.raw("</span></summary><ul class=\"choices\">")
            renderChoices(&h, s, value: value, field: field, disabled: disabled)
            h.raw("</ul></details></li>")
        case .titleValue:
            h.raw("<li class=\"title-value\" data-key=\"\(key.htmlEscaped)\"><span class=\"label\">")
            h.text(localized(s.title ?? ""))
            h.raw("</span><span class=\"value\">")
            h.text(s.title(for: value).map(localized) ?? ValueText.text(value))
            h.raw("</span></li>")
        case .childPane:
            if let child = s.childPanePath, bundle.panes[child] != nil {
                h.raw("<li class=\"child\"><a class=\"row\" href=\"")
                h.text(panePath(child))
                h.raw("\"><span class=\"label\">")
                h.text(localized(s.title ?? child))
                h.raw("</span></a></li>")
            } else {
                h.raw("<li class=\"child disabled\"><span class=\"label\">")
                h.text(localized(s.title ?? ""))
                h.raw("</span><span class=\"value\">unavailable</span></li>")
            }
        default:
            // Outside Apple's schema, or a control without a Key: kept, shown as such.
            h.raw("<li class=\"foreign\"><span class=\"label\">")
            h.text(localized(s.title ?? s.key ?? ""))
            h.raw("</span><span class=\"value\">")
            h.text(s.kind.isStandard ? "no Key" : "\(s.kind) (not supported here)")
            h.raw("</span></li>")
        }
    }

    func renderRadioGroup(_ h: inout HTMLBuilder, _ s: Specifier) {
        guard let key = s.key, !key.isEmpty else { return }
        let value = controller.values[key]
        let forced = controller.defaults.objectIsForced(forKey: key)
        if forced { h.raw("<li class=\"disabled\">"); managedNote(&h, true, key: key); h.raw("</li>") }
        renderChoices(&h, s, value: value, field: PaneSubmission.fieldName(key).htmlEscaped, disabled: forced ? " disabled" : "", asCells: true, key: key)
    }

    func renderChoices(_ h: inout HTMLBuilder, _ s: Specifier, value: PropertyList?, field: String, disabled: String,
                       asCells: Bool = false, key: String? = nil) {
        let values = s.values ?? []
        let titles = s.titles ?? []
        var rows = values.enumerated().map { (i, v) in (value: v, title: localized(i < titles.count ? titles[i] : ValueText.text(v))) }
        if s.displaySortedByTitle { rows.sort { $0.title.caseInsensitiveLess($1.title) } }
        for row in rows {
            h.raw(asCells ? "<li class=\"radio\" data-key=\"\((key ?? "").htmlEscaped)\">" : "<li>")
            h.raw("<label class=\"choice label\"><input type=\"radio\" name=\"\(field)\" value=\"")
            h.text(ValueText.text(row.value))
            h.raw("\"")
            h.raw(value.map { Specifier.valuesMatch(row.value, $0) } == true ? " checked" : "")
            h.raw("\(disabled)><span class=\"title\">")
            h.text(row.title)
            h.raw("</span><span class=\"check\">✓</span></label></li>")
        }
    }

    func imageTag(_ h: inout HTMLBuilder, _ name: String) {
        h.raw("<img alt=\"\" src=\"")
        h.text(appPath + "/image?name=" + name.urlQueryEncoded)
        h.raw("\">")
    }

    static func inputMode(_ keyboard: String?) -> String {
        switch keyboard {
        case "NumbersAndPunctuation": "decimal"
        case "NumberPad": "numeric"
        case "URL": "url"
        case "EmailAddress": "email"
        default: "text"
        }
    }

    static func autocapitalize(_ type: String?) -> String {
        switch type {
        case "Sentences": "sentences"
        case "Words": "words"
        case "AllCharacters": "characters"
        default: "none"
        }
    }
}

extension String {
    /// Case-insensitive order, for `DisplaySortedByTitle` (no locale rules).
    func caseInsensitiveLess(_ other: String) -> Bool {
        lowercased().lexicographicallyPrecedes(other.lowercased())
    }
}
