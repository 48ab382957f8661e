import PlatformIO
import PropertyList

/// Derives what the installed profiles ask of applications' own folders
/// (``ApplicationManifest``) from the managed tree, in two steps: the files
/// the values become (conversions only: ``files(tree:root:)``), then where
/// they go (what is in the way, the folders to make, what an earlier change
/// left: ``place(_:previous:root:)``). Everything is refused before anything
/// is written.
///
/// Only `System` profiles reach applications: their folders are the
/// machine's. Precedence is the tree's (the latest installed profile wins a
/// key), so no two files of one application disagree.
///
/// ```swift
/// let manifest = try ApplicationPolicies.derive(tree: tree, previous: live, root: "")
/// ```
package enum ApplicationPolicies {
    /// The manifest for `tree`. Throws, naming the profile, the key and the
    /// application, when a value has no form the application reads, a
    /// GSettings key is unknown or of the wrong type, a file the project did
    /// not write is in the way, or a folder on the way is not root's alone.
    package static func derive(tree: ManagedTree, previous: ApplicationManifest, root: String) throws(ProfileError) -> ApplicationManifest {
        var manifest = ApplicationManifest()
        (manifest.files, manifest.notes) = try files(tree: tree, root: root)
        try place(&manifest, previous: previous, root: root)
        return manifest
    }

    /// Checks that every value `prefs` gives an application has a form it
    /// reads (the conversions of ``derive(tree:previous:root:)``, without
    /// looking at the applications' folders): for `profiles validate`.
    package static func check(_ prefs: ManagedPreferences, identifier: String, root: String) throws(ProfileError) {
        var tree = ManagedTree()
        tree.forced[.system] = prefs.forced
        tree.forcedBy[.system] = prefs.forced.mapValues { $0.mapValues { _ in identifier } }
        tree.setOnce[.system] = prefs.setOnce.keys.sorted().map {
            SetOnceEntry(profile: identifier, domain: $0, timestamp: nil, often: false, values: prefs.setOnce[$0]!)
        }
        _ = try files(tree: tree, root: root)
    }

    /// The files `tree`'s system values become, and what an administrator should know.
    static func files(tree: ManagedTree, root: String) throws(ProfileError) -> (files: [ApplicationFile], notes: [String]) {
        let forced = tree.forced[.system] ?? [:]
        let owners = tree.forcedBy[.system] ?? [:]
        // Set-once values by domain, later profiles winning, with the profile each came from.
        var setOnce: [String: [LiteralString: (value: PropertyList, profile: String)]] = [:]
        for entry in tree.setOnce[.system] ?? [] {
            for (key, value) in entry.values { setOnce[entry.domain, default: [:]][key] = (value, entry.profile) }
        }
        var files: [ApplicationFile] = []
        var notes: [String] = []
        // Firefox's policies are one text per domain, whichever of its folders they go to.
        var firefox: [String: (file: (text: [UInt8], keys: [String])?, note: String?)] = [:]
        for app in ManagedApplication.all {
            switch app.format {
            case .chromePolicies:
                files += try chromeFiles(app, forced: forced[app.domain] ?? [:], owners: owners[app.domain] ?? [:], setOnce: setOnce[app.domain] ?? [:])
            case .firefoxPolicies:
                if firefox[app.domain] == nil {
                    let made = try firefoxPolicies(app, forced: forced[app.domain] ?? [:], owners: owners[app.domain] ?? [:])
                    if let note = made.note { notes.append(note) }
                    firefox[app.domain] = made
                }
                if let (text, keys) = firefox[app.domain]?.file {
                    files.append(ApplicationFile(path: app.folder + "/policies.json", contents: text, application: app.name,
                                                 entries: keys.map { ApplicationFile.Entry(domain: app.domain, key: $0, forced: true) }))
                }
            }
        }
        // GNOME: every other domain that is an installed schema.
        let candidates = Set(forced.keys).union(setOnce.keys).subtracting(ManagedApplication.all.map(\.domain))
        if !candidates.isEmpty {
            let installed = GSettingsSchemas(root: root, ids: candidates)
            var settings: [GSettingsTarget.Setting] = []
            for domain in candidates.sorted() {
                guard let schema = installed.schema(domain) else { continue }
                for (key, value) in forced[domain] ?? [:] {
                    settings.append(try GSettingsTarget.setting(value, key: key.string, schema: schema, forced: true, profile: owners[domain]?[key] ?? "?"))
                }
                for (key, entry) in setOnce[domain] ?? [:] where forced[domain]?[key] == nil {
                    settings.append(try GSettingsTarget.setting(entry.value, key: key.string, schema: schema, forced: false, profile: entry.profile))
                }
            }
            files += GSettingsTarget.files(settings)
        }
        return (files, notes)
    }

    /// Where `manifest`'s files go: the dconf profile they need, what is in the way, the folders
    /// to make and whether they can be trusted, and what `previous` wrote that no file needs now.
    static func place(_ manifest: inout ApplicationManifest, previous: ApplicationManifest, root: String) throws(ProfileError) {
        if manifest.files.contains(where: { $0.application == GSettingsTarget.application }) {
            let profilePath = root + GSettingsTarget.profile
            if previous.files.contains(where: { $0.path == GSettingsTarget.profile }) || !FileStatus.exists(profilePath) {
                manifest.files.append(ApplicationFile(path: GSettingsTarget.profile, contents: GSettingsTarget.profileContents,
                                                      application: GSettingsTarget.application, entries: []))
            } else if let text = try? FileIO.read(profilePath, limit: 1 << 20),
                      !String(decoding: text, as: UTF8.self).split(whereSeparator: \.isNewline).contains(where: {
                          $0.filter { $0 != " " && $0 != "\t" } == "system-db:" + GSettingsTarget.databaseName }) {
                manifest.notes.append("GNOME: \(profilePath) was written by the administrator and names no system-db:\(GSettingsTarget.databaseName); GNOME reads the profiles' settings once that line is added")
            }
        }
        let previousPaths = Set(previous.files.map(\.path)).union(previous.stale.map(\.path))
        for file in manifest.files where !previousPaths.contains(file.path) && FileStatus.exists(root + file.path) {
            throw ProfileError("", "\(file.application): \(root + file.path) exists and was not written by OpenDefaults; it is never replaced (move it away to let profiles manage \(file.application)); nothing was installed")
        }
        // Each folder the files go in: the nearest that exists must be root's alone, all the way from /
        // (a folder another user could change, or a link they planted, would let them put their own
        // policies beside ours); the missing ones are made.
        var folders: [String] = []
        let needed = Set(manifest.files.map { FileIO.parentDirectory(of: $0.path) })
        for target in needed.sorted() {
            let application = manifest.files.first { FileIO.parentDirectory(of: $0.path) == target }!.application
            var folder = target
            var missing: [String] = []
            while folder != "/", !folder.isEmpty, !FileStatus.exists(root + folder) {
                missing.append(folder)
                folder = FileIO.parentDirectory(of: folder)
            }
            if let why = PathTrust.problem(with: root + folder, owners: [0], subject: "\(application)'s policy folder", folder: true) {
                throw ProfileError("", "\(application): \(root + target) cannot be trusted: \(why); nothing was installed")
            }
            for m in missing where !folders.contains(m) { folders.append(m) }
        }
        // Folders made earlier stay listed while a file needs them; the others go once empty.
        func isNeeded(_ folder: String) -> Bool { needed.contains { $0 == folder || $0.hasPrefix(folder + "/") } }
        for f in previous.folders where isNeeded(f) && !folders.contains(f) { folders.append(f) }
        let byDepth = { (a: String, b: String) in a.split(separator: "/").count < b.split(separator: "/").count }
        manifest.folders = folders.sorted(by: byDepth)
        let newPaths = Set(manifest.files.map(\.path))
        for old in previous.files + previous.stale where !newPaths.contains(old.path) && FileStatus.exists(root + old.path)
            && !manifest.stale.contains(where: { $0.path == old.path }) {
            manifest.stale.append(old)
        }
        manifest.staleFolders = Set(previous.folders + previous.staleFolders).filter { !isNeeded($0) && FileStatus.exists(root + $0) }.sorted(by: byDepth)
    }

    /// The domain's key a user-scoped profile forces reaches no application: noted for `status`.
    package static func userScopedNote(domains: some Sequence<String>) -> String? {
        let managed = Set(ManagedApplication.all.map(\.domain))
        let reached = Set(domains).intersection(managed).sorted()
        guard !reached.isEmpty else { return nil }
        return "profiles installed for one user reach applications' own policy files only through OpenDefaults: \(reached.joined(separator: ", ")) are machine-wide (install the profile for the system)"
    }

    /// A value with no JSON form, as a refusal naming the profile that set it.
    static func refusal(_ error: PolicyJSON.Unrepresentable, _ app: ManagedApplication, profile: String) -> ProfileError {
        ProfileError("\(profile) › \(app.domain) › \(error.place.joined(separator: " › "))",
                     "\(app.name) reads policies as JSON, which has no \(error.found); nothing was installed")
    }

    // MARK: Chrome family

    static func chromeFiles(
        _ app: ManagedApplication, forced: [LiteralString: PropertyList], owners: [LiteralString: String],
        setOnce: [LiteralString: (value: PropertyList, profile: String)]
    ) throws(ProfileError) -> [ApplicationFile] {
        var files: [ApplicationFile] = []
        for (level, forcedLevel) in [("managed", true), ("recommended", false)] {
            // One file per profile: the keys that profile wins. (Grouped by file name: two identifiers
            // that make one name share the file, never overwrite each other's.)
            var byFile: [String: (profile: String, values: [LiteralString: PropertyList])] = [:]
            let entries: [(LiteralString, PropertyList, String)] = forcedLevel
                ? forced.map { ($0.key, $0.value, owners[$0.key] ?? "?") }
                : setOnce.map { ($0.key, $0.value.value, $0.value.profile) }
            for (key, value, profile) in entries {
                let name = "opendefaults-\(fileSafe(profile)).json"
                byFile[name, default: (profile, [:])].values[key] = value
            }
            for name in byFile.keys.sorted() {
                let (profile, values) = byFile[name]!
                let contents: [UInt8]
                do { contents = try PolicyJSON.text(values) } catch { throw refusal(error, app, profile: profile) }
                files.append(ApplicationFile(
                    path: "\(app.folder)/\(level)/\(name)", contents: contents, application: app.name,
                    entries: values.keys.map { ApplicationFile.Entry(domain: app.domain, key: $0.string, forced: forcedLevel) }.sorted { $0.key < $1.key }))
            }
        }
        return files
    }

    /// A profile identifier as part of a file name: letters, digits, `.`, `-` and `_` kept, anything else `_`.
    static func fileSafe(_ identifier: String) -> String {
        String(identifier.unicodeScalars.map { s -> Character in
            let ok = (s >= "a" && s <= "z") || (s >= "A" && s <= "Z") || (s >= "0" && s <= "9") || s == "." || s == "-" || s == "_"
            return ok ? Character(s) : "_"
        })
    }

    // MARK: Firefox

    /// `org.mozilla.firefox` as Firefox on a Mac reads it: the policy keys
    /// beside `EnterprisePoliciesEnabled`; a key written `Parent__Child` is
    /// the nested `{"Parent": {"Child": …}}`. An explicit
    /// `EnterprisePoliciesEnabled` false turns the policies off, as on a
    /// Mac; its absence does not (a Mac needs it, usually from another
    /// profile; here the policies a profile forces are meant).
    /// The `policies.json` text and the keys it carries, or nil; a note when they are turned off.
    static func firefoxPolicies(
        _ app: ManagedApplication, forced: [LiteralString: PropertyList], owners: [LiteralString: String]
    ) throws(ProfileError) -> (file: (text: [UInt8], keys: [String])?, note: String?) {
        var values = forced
        let enabled = values.removeValue(forKey: "EnterprisePoliciesEnabled")
        guard !values.isEmpty else { return (nil, nil) }
        if let enabled, enabled.boolValue == false {
            return (nil, "Firefox: EnterprisePoliciesEnabled is false in org.mozilla.firefox, so its \(values.count) policies are not written (as on a Mac)")
        }
        var policies: [LiteralString: PropertyList] = [:]
        for key in values.keys.sorted(by: { LiteralOrder.precedes($0.string, $1.string) }) {
            // Checked under the key the profile wrote, so that a refusal names the profile that set it.
            do { try PolicyJSON.check(values[key]!, place: [key.string]) } catch { throw refusal(error, app, profile: owners[key] ?? "?") }
            let parts = key.string.split(separator: "__", omittingEmptySubsequences: false).map(String.init)
            guard parts.count > 1, !parts.contains("") else { policies[key] = values[key]!; continue }
            policies = nest(values[key]!, at: parts[...], into: policies)
        }
        let text: [UInt8]
        do { text = try PolicyJSON.text(["policies": .dictionary(policies)]) } catch { throw refusal(error, app, profile: "?") }
        return ((text, values.keys.map(\.string).sorted(by: LiteralOrder.precedes)), nil)
    }

    private static func nest(_ value: PropertyList, at path: ArraySlice<String>, into table: [LiteralString: PropertyList]) -> [LiteralString: PropertyList] {
        var table = table
        let head = LiteralString(path.first!)
        if path.count == 1 { table[head] = value; return table }
        let inner: [LiteralString: PropertyList] = if case .dictionary(let d)? = table[head] { d } else { [:] }
        table[head] = .dictionary(nest(value, at: path.dropFirst(), into: inner))
        return table
    }
}
