import PropertyList

/// Choosing among a bundle's localizations for a list of preferred
/// languages, as a browser's `Accept-Language` gives them.
///
/// ```swift
/// LanguageMatching.candidates(for: ["pt-BR", "en"])
/// // ["pt-BR", "pt_BR", "pt", "en", "English", "Base", ...]
/// ```
public enum LanguageMatching {
    /// The `.lproj` names to try, best first, for `preferred` languages:
    /// each language as given, with `_` for `-`, its base language and its
    /// legacy English name; then `Base`, `en` and `English`.
    public static func candidates(for preferred: [String]) -> [String] {
        var out: [String] = []
        func add(_ s: String) { if !s.isEmpty, !out.contains(s) { out.append(s) } }
        for language in preferred {
            let tag = language.trimmingWhitespace
            add(tag)
            add(tag.replacingHyphens)
            let parts = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
            let base = parts.first ?? ""
            // Script subtags matter for Chinese: zh-Hans, zh-Hant.
            if parts.count > 2, parts[1].count == 4 { add(parts[0] + "-" + parts[1]) }
            add(base)
            if let legacy = legacyNames[base.lowercased()] { add(legacy) }
        }
        for fallback in ["Base", "en", "English"] { add(fallback) }
        return out
    }

    /// Languages from an HTTP `Accept-Language` header, by quality, best first.
    ///
    /// ```swift
    /// LanguageMatching.languages(acceptLanguage: "de-CH,de;q=0.9,en;q=0.5")
    /// // ["de-CH", "de", "en"]
    /// ```
    public static func languages(acceptLanguage header: String) -> [String] {
        var entries: [(tag: String, quality: Double, order: Int)] = []
        for (order, item) in header.split(separator: ",").enumerated() {
            let fields = item.split(separator: ";").map { String($0).trimmingWhitespace }
            guard let tag = fields.first, !tag.isEmpty, tag != "*", tag.count <= 35 else { continue }
            var quality = 1.0
            for field in fields.dropFirst() where field.hasPrefix("q=") {
                quality = Double(field.dropFirst(2)) ?? 0
            }
            if quality > 0 { entries.append((tag, quality, order)) }
            if entries.count >= 32 { break }
        }
        return entries.sorted { $0.quality != $1.quality ? $0.quality > $1.quality : $0.order < $1.order }.map(\.tag)
    }

    static let legacyNames: [String: String] = [
        "en": "English", "de": "German", "fr": "French", "ja": "Japanese", "es": "Spanish",
        "it": "Italian", "nl": "Dutch",
    ]
}
