import PlatformIO
import PropertyList

extension String {
    /// The parts between each `separator` (empty parts kept).
    fileprivate func splitting(on separator: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        while let r = rest.firstRange(of: separator) {
            parts.append(String(rest[..<r.lowerBound]))
            rest = rest[r.upperBound...]
        }
        return parts + [String(rest)]
    }
}

/// Derives what the installed profiles ask of applications' own folders
/// (``ApplicationManifest``) from the managed tree: a pure function of the
/// tree, the previous manifest and what is on disk, refusing before anything
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
    package static func derive(
        tree: ManagedTree, previous: ApplicationManifest, root: String, schemas: @autoclosure () -> GSettingsSchemas,
        checkingFolders: Bool = true
    ) throws(ProfileError) -> ApplicationManifest {
        let forced = tree.forced[.system] ?? [:]
        let owners = tree.forcedBy[.system] ?? [:]
        // Set-once values by domain, later profiles winning, with the profile each came from.
        var setOnce: [String: [LiteralString: (value: PropertyList, profile: String)]] = [:]
        for entry in tree.setOnce[.system] ?? [] {
            for (key, value) in entry.values { setOnce[entry.domain, default: [:]][key] = (value, entry.profile) }
        }
        var manifest = ApplicationManifest()
        var files: [ApplicationFile] = []

        for app in ManagedApplication.all {
            switch app.format {
            case .chromePolicies:
                files += try chromeFiles(app, forced: forced[app.domain] ?? [:], owners: owners[app.domain] ?? [:], setOnce: setOnce[app.domain] ?? [:])
            case .firefoxPolicies:
                let (file, note) = try firefoxFile(app, forced: forced[app.domain] ?? [:], owners: owners[app.domain] ?? [:])
                if let file { files.append(file) }
                if let note, !manifest.notes.contains(note) { manifest.notes.append(note) }
            }
        }

        // GNOME: every other domain that is an installed schema.
        let browserDomains = Set(ManagedApplication.all.map(\.domain))
        let candidates = Set(forced.keys).union(setOnce.keys).subtracting(browserDomains)
        if !candidates.isEmpty {
            let installed = schemas()
            var settings: [GSettingsTarget.Setting] = []
            for domain in candidates.sorted() {
                guard let schema = installed.schema(domain) else { continue }
                for (key, value) in forced[domain] ?? [:] {
                    let owner = owners[domain]?[key] ?? "?"
                    settings.append(try gsetting(value, key: key.string, schema: schema, forced: true, profile: owner))
                }
                for (key, entry) in setOnce[domain] ?? [:] where forced[domain]?[key] == nil {
                    settings.append(try gsetting(entry.value, key: key.string, schema: schema, forced: false, profile: entry.profile))
                }
            }
            let gnome = GSettingsTarget.files(settings)
            files += gnome
            if !gnome.isEmpty {
                let profilePath = root + GSettingsTarget.profile
                let ours = previous.files.contains { $0.path == GSettingsTarget.profile }
                if ours || !FileStatus.exists(profilePath) {
                    files.append(ApplicationFile(path: GSettingsTarget.profile, contents: GSettingsTarget.profileContents,
                                                 application: ManagedApplication.gnome, entries: []))
                } else if let text = try? FileIO.read(profilePath, limit: 1 << 20),
                          !String(decoding: text, as: UTF8.self).split(whereSeparator: \.isNewline).contains(where: {
                              $0.filter { $0 != " " && $0 != "\t" } == "system-db:" + GSettingsTarget.databaseName }) {
                    manifest.notes.append("GNOME: \(profilePath) was written by the administrator and names no system-db:\(GSettingsTarget.databaseName); GNOME reads the profiles' settings once that line is added")
                }
            }
        }

        guard checkingFolders else { return manifest }
        // What is in the way, and the folders to make.
        let previousPaths = Set(previous.files.map(\.path)).union(previous.stale.map(\.path))
        var folders: [String] = []
        for file in files {
            if !previousPaths.contains(file.path), FileStatus.exists(root + file.path) {
                throw ProfileError("", "\(file.application): \(root + file.path) exists and was not written by OpenDefaults; it is never replaced (move it away to let profiles manage \(file.application)); nothing was installed")
            }
            var missing: [String] = []
            var folder = FileIO.parentDirectory(of: file.path)
            while folder != "/", !folder.isEmpty, !FileStatus.exists(root + folder) {
                missing.append(folder)
                folder = FileIO.parentDirectory(of: folder)
            }
            // The nearest folder that exists must be root's alone, all the way from /: a folder another
            // user could change (or a link they planted) would let them put their own policies beside ours.
            if let why = PathTrust.problem(with: root + folder, owners: [0], subject: "\(file.application)'s policy folder", folder: true) {
                throw ProfileError("", "\(file.application): \(root + FileIO.parentDirectory(of: file.path)) cannot be trusted: \(why); nothing was installed")
            }
            for m in missing.reversed() where !folders.contains(m) { folders.append(m) }
        }
        // Folders made earlier stay listed while a file needs them.
        let needed = Set(files.map { FileIO.parentDirectory(of: $0.path) })
        func isNeeded(_ folder: String) -> Bool { needed.contains { $0 == folder || $0.hasPrefix(folder + "/") } }
        for f in previous.folders where isNeeded(f) && !folders.contains(f) { folders.append(f) }
        folders.sort { $0.split(separator: "/").count < $1.split(separator: "/").count }
        manifest.files = files
        manifest.folders = folders
        let newPaths = Set(files.map(\.path))
        for old in previous.files + previous.stale where !newPaths.contains(old.path) && FileStatus.exists(root + old.path) {
            if !manifest.stale.contains(where: { $0.path == old.path }) { manifest.stale.append(old) }
        }
        for f in previous.folders + previous.staleFolders where !isNeeded(f) && FileStatus.exists(root + f) && !manifest.staleFolders.contains(f) {
            manifest.staleFolders.append(f)
        }
        manifest.staleFolders.sort { $0.split(separator: "/").count < $1.split(separator: "/").count }
        return manifest
    }

    /// Checks that every value `prefs` gives an application has a form it
    /// reads (the conversions of ``derive(tree:previous:root:schemas:)``,
    /// without looking at the applications' folders): for `profiles validate`.
    package static func check(_ prefs: ManagedPreferences, identifier: String, root: String) throws(ProfileError) {
        var tree = ManagedTree()
        tree.forced[.system] = prefs.forced
        tree.forcedBy[.system] = prefs.forced.mapValues { $0.mapValues { _ in identifier } }
        tree.setOnce[.system] = prefs.setOnce.keys.sorted().map {
            SetOnceEntry(profile: identifier, domain: $0, timestamp: nil, often: false, values: prefs.setOnce[$0]!)
        }
        _ = try derive(tree: tree, previous: ApplicationManifest(), root: root, schemas: GSettingsSchemas(root: root), checkingFolders: false)
    }

    /// The domain's key a user-scoped profile forces reaches no application: noted for `status`.
    package static func userScopedNote(domains: some Sequence<String>) -> String? {
        let managed = Set(ManagedApplication.all.map(\.domain))
        let reached = Set(domains).intersection(managed).sorted()
        guard !reached.isEmpty else { return nil }
        return "profiles installed for one user reach applications' own policy files only through OpenDefaults: \(reached.joined(separator: ", ")) are machine-wide (install the profile for the system)"
    }

    // MARK: Chrome family

    static func chromeFiles(
        _ app: ManagedApplication, forced: [LiteralString: PropertyList], owners: [LiteralString: String],
        setOnce: [LiteralString: (value: PropertyList, profile: String)]
    ) throws(ProfileError) -> [ApplicationFile] {
        var files: [ApplicationFile] = []
        for (level, forcedLevel) in [("managed", true), ("recommended", false)] {
            // One file per profile: the keys that profile wins.
            var byProfile: [String: [LiteralString: PropertyList]] = [:]
            if forcedLevel {
                for (key, value) in forced { byProfile[owners[key] ?? "profiles", default: [:]][key] = value }
            } else {
                for (key, entry) in setOnce { byProfile[entry.profile, default: [:]][key] = entry.value }
            }
            for profile in byProfile.keys.sorted() {
                let values = byProfile[profile]!
                let contents: [UInt8]
                do { contents = try PolicyJSON.text(values) } catch {
                    throw ProfileError("\(profile) › \(app.domain) › \(error.place.joined(separator: " › "))",
                                       "\(app.name) reads policies as JSON, which has no \(error.found); nothing was installed")
                }
                files.append(ApplicationFile(
                    path: "\(app.folder)/\(level)/opendefaults-\(fileSafe(profile)).json", contents: contents, application: app.name,
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
    static func firefoxFile(
        _ app: ManagedApplication, forced: [LiteralString: PropertyList], owners: [LiteralString: String]
    ) throws(ProfileError) -> (ApplicationFile?, String?) {
        var values = forced
        let enabled = values.removeValue(forKey: "EnterprisePoliciesEnabled")
        guard !values.isEmpty else { return (nil, nil) }
        if let enabled, enabled.boolValue == false {
            return (nil, "Firefox: EnterprisePoliciesEnabled is false in org.mozilla.firefox, so its \(values.count) policies are not written (as on a Mac)")
        }
        var policies: [LiteralString: PropertyList] = [:]
        for key in values.keys.sorted(by: { $0.string < $1.string }) {
            let parts = key.string.splitting(on: "__")
            guard parts.count > 1, !parts.contains("") else { policies[key] = values[key]!; continue }
            policies = nest(values[key]!, at: parts[...], into: policies)
        }
        let contents: [UInt8]
        do { contents = try PolicyJSON.text(["policies": .dictionary(policies)]) } catch {
            let key = error.place.dropFirst().first.map { LiteralString($0) }
            let owner = key.flatMap { owners[$0] } ?? "profiles"
            throw ProfileError("\(owner) › \(app.domain) › \(error.place.dropFirst().joined(separator: " › "))",
                               "Firefox reads policies as JSON, which has no \(error.found); nothing was installed")
        }
        return (ApplicationFile(path: app.folder + "/policies.json", contents: contents, application: app.name,
                                entries: values.keys.map { ApplicationFile.Entry(domain: app.domain, key: $0.string, forced: true) }.sorted { $0.key < $1.key }), nil)
    }

    private static func nest(_ value: PropertyList, at path: ArraySlice<String>, into table: [LiteralString: PropertyList]) -> [LiteralString: PropertyList] {
        var table = table
        let head = LiteralString(path.first!)
        if path.count == 1 { table[head] = value; return table }
        let inner: [LiteralString: PropertyList] = if case .dictionary(let d)? = table[head] { d } else { [:] }
        table[head] = .dictionary(nest(value, at: path.dropFirst(), into: inner))
        return table
    }

    // MARK: GNOME

    static func gsetting(_ value: PropertyList, key: String, schema: GSettingsSchemas.Schema, forced: Bool, profile: String) throws(ProfileError) -> GSettingsTarget.Setting {
        switch GSettingsTarget.text(of: value, key: key, in: schema) {
        case .success(let text): return GSettingsTarget.Setting(schema: schema, key: key, text: text, forced: forced, profile: profile)
        case .failure(let error):
            throw ProfileError("\(profile) › \(schema.id) › \(key)", "\(ManagedApplication.gnome): \(error.reason); nothing was installed")
        }
    }
}
