import PropertyList

/// GNOME's settings from a profile: each domain that is an installed GSettings
/// schema becomes keys of the system dconf database `opendefaults`, forced
/// keys locked. Its files (without the system root):
///
/// ```
/// /etc/dconf/db/opendefaults.d/opendefaults-profiles         [org/gnome/desktop/background] picture-uri='…'
/// /etc/dconf/db/opendefaults.d/locks/opendefaults-profiles   /org/gnome/desktop/background/picture-uri
/// /etc/dconf/profile/user                                    user-db:user, system-db:opendefaults (only when missing)
/// ```
///
/// `dconf update` compiles them into `/etc/dconf/db/opendefaults`, which every
/// GSettings program reads through the `user` dconf profile.
enum GSettingsTarget {
    static let databaseName = "opendefaults"
    static let database = "/etc/dconf/db/" + databaseName
    static let keyfile = database + ".d/opendefaults-profiles"
    static let locks = database + ".d/locks/opendefaults-profiles"
    static let profile = "/etc/dconf/profile/user"
    static let profileContents = Array("user-db:user\nsystem-db:\(databaseName)\n".utf8)

    /// One key's line, ready for the keyfile.
    struct Setting {
        var schema: GSettingsSchemas.Schema
        var key: String
        var text: String
        var forced: Bool
        var profile: String
    }

    /// The GVariant text of `value` for `key` of `schema`; the reason, naming the expected type, when it has none.
    static func text(of value: PropertyList, key: String, in schema: GSettingsSchemas.Schema) -> Result<String, ProfileError> {
        guard schema.path != nil else {
            return .failure(ProfileError("", "the schema \(schema.id) is relocatable (it has no dconf path of its own), so a profile cannot set it"))
        }
        guard let declared = schema.keys[key] else {
            let known = schema.keys.keys.sorted().prefix(12).joined(separator: ", ")
            return .failure(ProfileError("", "the schema \(schema.id) has no key \(key) (its keys: \(known)\(schema.keys.count > 12 ? ", …" : ""))"))
        }
        let expected = "expected \(declared.typeDescription)"
        let text: String
        do { text = try GVariantText.text(of: value, as: declared.type) } catch {
            return .failure(ProfileError("", "the schema \(schema.id) declares \(key) as \(declared.typeDescription): expected \(error.expected)"))
        }
        if let choices = declared.choices {
            let strings: [String] = switch value {
            case .string(let s): [s]
            case .array(let items): items.compactMap(\.stringValue)
            default: []
            }
            if let bad = strings.first(where: { !choices.contains($0) }) {
                return .failure(ProfileError("", "the schema \(schema.id) declares \(key) as \(declared.typeDescription): \"\(bad)\" is not one of \(choices.joined(separator: ", ")) (\(expected))"))
            }
        }
        if let range = declared.range, let number = value.doubleValue, !range.contains(number) {
            return .failure(ProfileError("", "the schema \(schema.id) declares \(key) in the range \(range.lowerBound)…\(range.upperBound): \(number) is outside it"))
        }
        return .success(text)
    }

    /// The keyfile and the locks file of `settings` (sorted by path and key, so equal settings give equal bytes).
    static func files(_ settings: [Setting]) -> [ApplicationFile] {
        guard !settings.isEmpty else { return [] }
        var groups: [String: [Setting]] = [:]
        for s in settings { groups[s.schema.path!, default: []].append(s) }
        var keyfile = "# Written by `profiles` (OpenDefaults) from the installed configuration profiles; changed by every install and removal.\n"
        var locks = ""
        var entries: [ApplicationFile.Entry] = []
        for path in groups.keys.sorted() {
            let group = path.split(separator: "/").joined(separator: "/")
            keyfile += "\n[\(group)]\n"
            for s in groups[path]!.sorted(by: { $0.key < $1.key }) {
                keyfile += "\(s.key)=\(s.text)\n"
                if s.forced { locks += (path.hasSuffix("/") ? path : path + "/") + s.key + "\n" }
                entries.append(ApplicationFile.Entry(domain: s.schema.id, key: s.key, forced: s.forced))
            }
        }
        var out = [ApplicationFile(path: Self.keyfile, contents: Array(keyfile.utf8), application: ManagedApplication.gnome, entries: entries)]
        if !locks.isEmpty {
            out.append(ApplicationFile(path: Self.locks, contents: Array(locks.utf8), application: ManagedApplication.gnome,
                                       entries: entries.filter(\.forced)))
        }
        return out
    }
}
