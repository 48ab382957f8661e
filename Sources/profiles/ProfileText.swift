import ConfigurationProfiles
import PropertyList

/// `profiles show`'s text: the profile's identity, then each domain's keys and values.
enum ProfileText {
    static func describe(_ profile: ConfigurationProfile) -> String {
        var out = """
            \(profile.displayName)
              identifier: \(profile.identifier)
              uuid: \(profile.uuid)
              scope: \(profile.scope.rawValue)
              signature: \(profile.isSigned ? "signed (not verified: verification is not implemented yet)" : "unsigned")
              removal disallowed: \(profile.removalDisallowed ? "yes" : "no")

            """
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
        section("forced", profile.preferences.forced)
        section("set once", profile.preferences.setOnce)
        for type in profile.preferences.ignoredPayloads { out += "not applicable here: \(type)\n" }
        if profile.preferences.isEmpty { out += "it sets no preferences here\n" }
        return out
    }
}
