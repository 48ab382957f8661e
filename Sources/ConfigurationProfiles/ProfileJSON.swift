public import PropertyList
import FoundationEssentials

/// Managed preferences as JSON (`profiles show --output json`):
/// `{"forced": {domain: {key: value}}, "set_once": {…}, "ignored_payloads": [type, …]}`.
/// Dates are ISO-8601 in UTC, data is base64, reals keep a decimal point or
/// an exponent, integers have neither; keys are sorted by their scalars.
///
/// ```swift
/// print(ProfileJSON.text(profile.preferences))
/// ```
public enum ProfileJSON {
    public static func text(_ prefs: ManagedPreferences) -> String {
        var out: [UInt8] = []
        out += Array("{\"forced\": ".utf8)
        appendDomains(prefs.forced, to: &out)
        out += Array(", \"set_once\": ".utf8)
        appendDomains(prefs.setOnce, to: &out)
        out += Array(", \"ignored_payloads\": ".utf8)
        append(.array(prefs.ignoredPayloads.map(PropertyList.string)), to: &out)
        out += Array("}".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    static func appendDomains(_ table: [String: [LiteralString: PropertyList]], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (i, domain) in table.keys.sorted(by: { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }).enumerated() {
            if i > 0 { out += [UInt8(ascii: ","), 0x20] }
            JSONEscape.appendQuoted(domain, to: &out, escapingSlash: false)
            out += [UInt8(ascii: ":"), 0x20]
            append(.dictionary(table[domain]!), to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// One value as JSON.
    public static func append(_ value: PropertyList, to out: inout [UInt8]) {
        switch value {
        case .string(let s): JSONEscape.appendQuoted(s, to: &out, escapingSlash: false)
        case .integer(let n): out += Array(n.description.utf8)
        case .real(let d):
            // JSON has no NaN or infinity: they are written as the strings `defaults` prints.
            if d.isFinite {
                var text = d.description
                if !text.contains(".") && !text.contains("e") { text += ".0" }
                out += Array(text.utf8)
            } else {
                JSONEscape.appendQuoted(d.isNaN ? "nan" : (d < 0 ? "-inf" : "inf"), to: &out, escapingSlash: false)
            }
        case .boolean(let b): out += Array((b ? "true" : "false").utf8)
        case .date(let date): JSONEscape.appendQuoted(PropertyList.iso8601String(for: date), to: &out, escapingSlash: false)
        case .data(let data):
            var text: [UInt8] = []
            data.withUnsafeBytes { Base64.encode($0, lineLength: 0, indent: 0, into: &text) }
            JSONEscape.appendQuoted(String(decoding: text, as: UTF8.self), to: &out, escapingSlash: false)
        case .uid(let n): out += Array("{\"CF$UID\": \(n)}".utf8)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out += [UInt8(ascii: ","), 0x20] }
                append(item, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let d):
            out.append(UInt8(ascii: "{"))
            for (i, key) in d.keys.sorted(by: { $0.string.unicodeScalars.lexicographicallyPrecedes($1.string.unicodeScalars) }).enumerated() {
                if i > 0 { out += [UInt8(ascii: ","), 0x20] }
                JSONEscape.appendQuoted(key.string, to: &out, escapingSlash: false)
                out += [UInt8(ascii: ":"), 0x20]
                append(d[key]!, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
