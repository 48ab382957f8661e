import PlatformIO
import PropertyList

/// The user's preferred languages: `AppleLanguages` from the global domain,
/// else `LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG` (as BCP 47 tags:
/// `fr_FR.UTF-8` becomes `fr-FR`; `C` and `POSIX` become `en`).
enum Languages {
    static func fromEnvironment() -> [String] {
        if let list = Environment["LANGUAGE"], !list.isEmpty {
            let tags = list.split(separator: ":").compactMap { tag(String($0)) }
            if !tags.isEmpty { return tags }
        }
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let v = Environment[name], !v.isEmpty, let t = tag(v) { return [t] }
        }
        return ["en"]
    }

    /// `fr_FR.UTF-8@euro` → `fr-FR`.
    static func tag(_ locale: String) -> String? {
        var s = Substring(locale)
        if let dot = s.firstIndex(of: ".") { s = s[..<dot] }
        if let at = s.firstIndex(of: "@") { s = s[..<at] }
        if s.isEmpty { return nil }
        if s == "C" || s == "POSIX" { return "en" }
        return s.replacingOccurrences("_", "-")
    }

    /// `fr_FR` from the environment, for `AppleLocale`.
    static func localeFromEnvironment() -> String {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let v = Environment[name], !v.isEmpty, var t = tag(v) {
                if t == "en" && (v == "C" || v.hasPrefix("C.") || v == "POSIX") { t = "en_US" }
                return t.replacingOccurrences("-", "_")
            }
        }
        return "en_US"
    }
}

extension StringProtocol {
    func replacingOccurrences(_ a: Character, _ b: Character) -> String {
        String(map { $0 == a ? b : $0 })
    }
}
