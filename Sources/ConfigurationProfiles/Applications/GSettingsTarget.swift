import PlatformIO
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
    /// The name `status` and `install` show.
    static let application = "GNOME (dconf)"
    /// The dconf databases' folder.
    static let databases = "/etc/dconf/db"
    static let databaseName = "opendefaults"
    static let database = databases + "/" + databaseName
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
    }

    /// `value` for `key` of `schema`, as GVariant text of the declared type. Refused,
    /// naming `profile`, the schema, the key and the expected type, when it has none.
    static func setting(_ value: PropertyList, key: String, schema: GSettingsSchemas.Schema, forced: Bool, profile: String) throws(ProfileError) -> Setting {
        func refuse(_ reason: String) -> ProfileError {
            ProfileError("\(profile) › \(schema.id) › \(key)", "\(application): \(reason); nothing was installed")
        }
        guard schema.path != nil else {
            throw refuse("the schema \(schema.id) is relocatable (it has no dconf path of its own), so a profile cannot set it")
        }
        guard let declared = schema.keys[key] else {
            let known = schema.keys.keys.sorted().prefix(12).joined(separator: ", ")
            throw refuse("the schema \(schema.id) has no key \(key) (its keys: \(known)\(schema.keys.count > 12 ? ", …" : ""))")
        }
        let text: String
        do { text = try GVariantText.text(of: value, as: declared.type) } catch {
            throw refuse("the schema \(schema.id) declares \(key) as \(declared.typeDescription): expected \(error.expected)")
        }
        if let choices = declared.choices {
            let strings: [String] = switch value {
            case .string(let s): [s]
            case .array(let items): items.compactMap(\.stringValue)
            default: []
            }
            if let bad = strings.first(where: { !choices.contains($0) }) {
                throw refuse("the schema \(schema.id) declares \(key) as \(declared.typeDescription): \"\(bad)\" is not one of \(choices.joined(separator: ", ")) (expected \(declared.typeDescription))")
            }
        }
        if let range = declared.range, let number = value.doubleValue, !range.contains(number) {
            throw refuse("the schema \(schema.id) declares \(key) in the range \(range.lowerBound)…\(range.upperBound): \(number) is outside it")
        }
        return Setting(schema: schema, key: key, text: text, forced: forced)
    }

    /// The keyfile and the locks file of `settings` (sorted by path and key, so equal settings give equal bytes).
    static func files(_ settings: [Setting]) -> [ApplicationFile] {
        guard !settings.isEmpty else { return [] }
        var groups: [String: [Setting]] = [:]
        for s in settings { groups[s.schema.path!, default: []].append(s) }
        var text = "# Written by `profiles` (OpenDefaults) from the installed configuration profiles; changed by every install and removal.\n"
        var locks = ""
        var entries: [ApplicationFile.Entry] = []
        for path in groups.keys.sorted() {
            let group = path.split(separator: "/").joined(separator: "/")
            text += "\n[\(group)]\n"
            for s in groups[path]!.sorted(by: { $0.key < $1.key }) {
                text += "\(s.key)=\(s.text)\n"
                if s.forced { locks += (path.hasSuffix("/") ? path : path + "/") + s.key + "\n" }
                entries.append(ApplicationFile.Entry(domain: s.schema.id, key: s.key, forced: s.forced))
            }
        }
        var out = [ApplicationFile(path: keyfile, contents: Array(text.utf8), application: application, entries: entries)]
        if !locks.isEmpty {
            out.append(ApplicationFile(path: Self.locks, contents: Array(locks.utf8), application: application,
                                       entries: entries.filter(\.forced)))
        }
        return out
    }
}

extension GSettingsTarget {
    /// Brings the compiled database to the keyfiles: compiled again after `apply` changed them
    /// (`changed`) or when a crash left a keyfile newer than it; removed once no keyfile is left
    /// (`dconf update` compiles only what has a keyfile folder). The reason when it could not.
    static func finish(root: String, changed: Bool, keyfiles: [String]) -> String? {
        if keyfiles.isEmpty {
            // Also when a crash came between the keyfile's removal and the database's.
            guard FileStatus.exists(root + database), !FileStatus.exists(root + keyfile) else { return nil }
            do { try FileIO.remove(root + database) } catch { return "\(application): \(root + database) cannot be removed: \(error.reason)" }
            return nil
        }
        let compiled = (try? FileStatus.of(root + database))?.modified
        let stale = keyfiles.contains { path in
            guard let written = (try? FileStatus.of(root + path))?.modified else { return false }
            return compiled.map { written > $0 } ?? true
        }
        guard changed || stale else { return nil }
        guard let dconf = ["/usr/bin/dconf", "/bin/dconf"].first(where: FileStatus.exists) else {
            return "\(application): dconf is not installed (Debian's dconf-cli), so \(root + databases) was not compiled: run `dconf update` once it is"
        }
        let folder = root + databases
        do {
            let status = try ChildProcess.run([dconf, "update", folder])
            return status == 0 ? nil : "\(application): `dconf update \(folder)` failed (status \(status))"
        } catch {
            return "\(application): `dconf update` could not run: \(error.reason)"
        }
    }
}
