import ConfigurationProfiles
import ProfileSignatures
import PropertyList

/// `profiles show`'s text: the profile's identity, then each domain's keys and values.
enum ProfileText {
    static func describe(_ profile: ConfigurationProfile, signature: ProfileSignatureCheck.Outcome) -> String {
        let signatureText: String
        switch signature {
        case .unsigned: signatureText = "Unsigned"
        case .signed(let status): signatureText = status.description
        case .invalid(let why): signatureText = "INVALID: \(why) (it would not be installed)"
        }
        return """
            \(profile.displayName)
              identifier: \(profile.identifier)
              uuid: \(profile.uuid)
              scope: \(profile.scope.rawValue)
              signature: \(signatureText)
              removal disallowed: \(profile.removalDisallowed ? "yes" : "no")

            """ + sections(profile.preferences)
    }

    /// Each domain's forced and set-once keys with their values, then the payloads that do not apply.
    static func sections(_ prefs: ManagedPreferences) -> String {
        var out = ""
        func section(_ title: String, _ table: [String: [LiteralString: PropertyList]]) {
            for domain in table.keys.sorted() {
                out += "\(title) \(domain):\n"
                let values = table[domain]!
                for key in values.keys.sorted(by: { $0.string < $1.string }) {
                    let text = values[key]!.description.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n    ")
                    out += "    \(key.string) = \(text)\n"
                }
            }
        }
        section("forced", prefs.forced)
        section("set once", prefs.setOnce)
        for type in prefs.ignoredPayloads { out += "not applicable here: \(type)\n" }
        if prefs.isEmpty { out += "it sets no preferences here\n" }
        return out
    }
}
