#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import OpenDefaults
import PlatformIO
import SharedTables
import PropertyList

/// The installed configuration profiles of this system, kept where the
/// managed preferences are, as one tree that changes in one step.
///
/// ```
/// <managed>/profiles/index.plist                 who is installed, who forces what, conflicts (0644)
/// <managed>/profiles/installed/<n>.mobileconfig   each profile's original bytes (0700 folder, 0600 files)
/// <managed>/profiles/forced/<domain>.plist        system profiles' forced values (what the library reads)
/// <managed>/profiles/set-once.plist               system profiles' set-once values
/// <managed>/profiles/users/<name>/forced/…        one user's profiles, likewise
/// <managed>/profiles/users/<name>/set-once.plist
/// ```
///
/// An install or a removal writes a whole new tree beside the live one,
/// flushes it, and exchanges the two names atomically (`renameat2`
/// `RENAME_EXCHANGE`): a reader, or a crash at any point, sees the previous
/// tree whole or the next one whole. Leftovers of a crash are removed by the
/// next change. Changes are serialised by a lock file and need root (the
/// library trusts managed files only when root owns their whole path).
///
/// ```swift
/// let store = ProfileStore()
/// let profile = try ConfigurationProfile(bytes: bytes)
/// _ = try store.install(profile, bytes: bytes, signature: .unsigned, target: .system)
/// ```
public struct ProfileStore: Sendable {
    /// The managed-preferences folder.
    public let managedDirectory: String

    /// The root under which applications' own policy folders are
    /// (`<root>/etc/chromium/policies`, ``ManagedApplication``): the folder
    /// holding `etc/managed-preferences`, or nil when the managed folder lies
    /// elsewhere (then profiles reach no application's own files).
    package let applicationRoot: String?

    /// The store of `layout`'s managed-preferences folder.
    public init(layout: PreferencesLayout = .current) {
        self.init(managedDirectory: layout.managedDirectory)
    }

    /// The store inside `managedDirectory`.
    public init(managedDirectory: String) {
        self.managedDirectory = managedDirectory
        let suffix = PreferencesLayout.managedFolder
        applicationRoot = managedDirectory.hasSuffix(suffix) ? String(managedDirectory.dropLast(suffix.count)) : nil
    }

    /// The live tree.
    public var directory: String { managedDirectory + "/profiles" }
    var indexPath: String { directory + "/index.plist" }
    var lockPath: String { managedDirectory + "/.profiles.lock" }
    static let stagingPrefix = ".profiles.new."

    /// The folder of a target's files, inside the tree at `root`.
    static func folder(of target: ProfileTarget, in root: String) -> String {
        switch target {
        case .system: root
        case .user(let name): root + "/users/" + name
        }
    }

    // MARK: Reading (any user)

    /// The installed profiles (empty when none ever was).
    public func index() throws(ProfileError) -> ProfileIndex {
        try Self.readIndex(at: indexPath)
    }

    static func readIndex(at path: String) throws(ProfileError) -> ProfileIndex {
        let bytes: [UInt8]
        do { bytes = try FileIO.read(path, limit: 64 << 20) } catch {
            if error.isNotFound { return ProfileIndex() }
            throw ProfileError(path, "the profile index cannot be read: \(error.reason)")
        }
        do {
            return try ProfileIndex(propertyList: try PropertyList(decoding: bytes), path: path)
        } catch let error as ProfileError {
            throw error
        } catch {
            throw ProfileError(path, "the profile index is not a property list: \(error)")
        }
    }

    /// The set-once values that apply to `user`: system profiles', then the user's own, each in install order.
    public func setOnceEntries(for user: String) throws(ProfileError) -> [SetOnceEntry] {
        var out: [SetOnceEntry] = []
        for target in [ProfileTarget.system, .user(user)] {
            let path = Self.folder(of: target, in: directory) + "/set-once.plist"
            let bytes: [UInt8]
            do { bytes = try FileIO.read(path, limit: 64 << 20) } catch {
                if error.isNotFound { continue }
                throw ProfileError(path, "cannot be read: \(error.reason)")
            }
            guard case .array(let entries)? = try? PropertyList(decoding: bytes) else { throw ProfileError(path, "expected an array of set-once entries") }
            for (i, e) in entries.enumerated() { out.append(try SetOnceEntry(propertyList: e, place: "\(path) › [\(i)]")) }
        }
        return out
    }

    /// What the installed profiles put in applications' own folders, and the notes about them (readable by any user).
    package func applicationManifest() throws(ProfileError) -> ApplicationManifest {
        try ApplicationManifest.read(inTree: directory)
    }

    /// The original bytes of an installed profile (root only: profiles may hold secrets).
    public func originalBytes(of profile: InstalledProfile) throws(ProfileError) -> [UInt8] {
        let path = directory + "/installed/" + profile.file
        do { return try FileIO.read(path, limit: ConfigurationProfile.maximumSize) } catch {
            throw ProfileError(path, "cannot be read: \(error.reason)")
        }
    }

    // MARK: Changing (root)

    /// What an install did.
    public struct InstallResult: Sendable {
        /// The new record.
        public var installed: InstalledProfile
        /// The record it replaced (the same identifier for the same target), if any.
        public var replaced: InstalledProfile?
        /// Conflicts the profile is part of, after the install.
        public var conflicts: [ProfileConflict]
        /// What applications' own folders could not be brought to (each names the file and why);
        /// the next change of profiles tries again. Empty when every application file is in place.
        public var applicationProblems: [String]
    }

    /// What a removal did.
    public struct RemovalResult: Sendable {
        /// The records removed.
        public var removed: [InstalledProfile]
        /// As ``InstallResult/applicationProblems``.
        public var applicationProblems: [String]
    }

    /// Installs `profile` (read from `bytes`) for `target`, replacing an
    /// installed profile with the same identifier and target.
    ///
    /// Refused, with nothing changed: a `User` profile for the system or a
    /// `System` profile for one user, a user name that is not a plain name,
    /// and anything the store cannot read back whole.
    public func install(
        _ profile: ConfigurationProfile, bytes: [UInt8], signature: ProfileSignatureStatus, target: ProfileTarget, now: Date = Date()
    ) throws(ProfileError) -> InstallResult {
        switch (profile.scope, target) {
        case (.system, .user): throw ProfileError("PayloadScope", "the profile is for the whole system (System); it cannot be installed for one user")
        case (.user, .system): throw ProfileError("PayloadScope", "the profile is for one user (User): name the user")
        case (.user, .user(let name)): try Self.checkUserName(name)
        case (.system, .system): break
        }
        return try change(requireTrust: true) { (entries, index) throws(ProfileError) in
            let replaced = entries.first { $0.record.identifier == profile.identifier && $0.record.target == target }?.record
            entries.removeAll { $0.record.identifier == profile.identifier && $0.record.target == target }
            let record = InstalledProfile(profile, target: target, sequence: index.nextSequence, installedAt: now, signature: signature)
            index.nextSequence += 1
            entries.append(StoredProfile(record: record, preferences: profile.preferences, bytes: bytes))
            return { (tree: ManagedTree, problems: [String]) in
                InstallResult(installed: record, replaced: replaced,
                              conflicts: tree.conflicts.filter { $0.winner == record.identifier || $0.overridden.contains(record.identifier) },
                              applicationProblems: problems)
            }
        }
    }

    /// Removes the installed profile `identifier` (for `target`, or every
    /// target it is installed for); returns what was removed. Refused for a
    /// profile with `PayloadRemovalDisallowed` unless `force`.
    @discardableResult
    public func remove(identifier: String, target: ProfileTarget? = nil, force: Bool = false) throws(ProfileError) -> RemovalResult {
        try change { (entries, _) throws(ProfileError) in
            let matching = entries.filter { $0.record.identifier == identifier && (target == nil || $0.record.target == target) }
            guard !matching.isEmpty else {
                throw ProfileError("", "no installed profile has the identifier \(identifier)" + (target.map { " for the \($0)" } ?? ""))
            }
            if !force, let locked = matching.first(where: { $0.record.removalDisallowed }) {
                throw ProfileError("", "\(locked.record.identifier) (\(locked.record.displayName)) disallows its removal (PayloadRemovalDisallowed); use --force to remove it anyway")
            }
            entries.removeAll { e in matching.contains { $0.record == e.record } }
            let removed = matching.map(\.record)
            return { _, problems in RemovalResult(removed: removed, applicationProblems: problems) }
        }
    }

    /// A profile as the store holds it while it changes.
    struct StoredProfile {
        var record: InstalledProfile
        var preferences: ManagedPreferences
        var bytes: [UInt8]
    }

    /// Runs one change under the lock: reads every installed profile back,
    /// lets `body` change the list, then writes the whole new tree and
    /// exchanges it with the live one. `body` returns what to answer once the
    /// tree is derived.
    func change<T>(
        requireTrust: Bool = false,
        _ body: (inout [StoredProfile], inout ProfileIndex) throws(ProfileError) -> (ManagedTree, [String]) -> T
    ) throws(ProfileError) -> T {
        guard Environment.effectiveUserID == 0 else {
            throw ProfileError("", "installing and removing profiles needs root: the library trusts managed preferences only in files root owns (run it with sudo)")
        }
        do {
            // Each missing folder on the way made 0755 exactly (root's umask may be 077).
            var missing: [String] = []
            var folder = managedDirectory
            while !FileStatus.exists(folder), folder != "/", !folder.isEmpty {
                missing.append(folder)
                folder = FileIO.parentDirectory(of: folder)
            }
            for path in missing.reversed() { try FileIO.makeDirectoryExactly(path, permissions: 0o755) }
        } catch {
            throw ProfileError(managedDirectory, "cannot be created: \(error.reason)")
        }
        // A tree the library will not trust (a folder on the way writable by others, or not
        // root's) would be ignored by every reader: installing into it would report success
        // and force nothing.
        if requireTrust, let why = PathTrust.problem(with: managedDirectory, owners: [0], subject: "managed preferences", folder: true) {
            throw ProfileError(managedDirectory, "is not trusted, so no program would obey a profile installed there: \(why); nothing was installed")
        }
        let lock: FileLock
        do { lock = try FileLock(path: lockPath) } catch { throw ProfileError(lockPath, "cannot be opened: \(error.reason)") }
        return try lock.withLock { () throws(ProfileError) -> T in
            try removeLeftovers()
            // An earlier change that stopped after its exchange (a crash) is finished first, so that
            // what this one finds on disk is what the live tree says. (What it could not do is
            // reported by this change's own `apply`, which tries again.)
            let live = try applicationManifest()
            if let root = applicationRoot { live.apply(root: root) }
            var index = try index()
            var entries: [StoredProfile] = []
            for record in index.profiles {
                let bytes = try originalBytes(of: record)
                let profile: ConfigurationProfile
                do { profile = try ConfigurationProfile(bytes: bytes) } catch {
                    throw ProfileError(directory + "/installed/" + record.file,
                                       "the installed profile \(record.identifier) can no longer be read (\(error)); nothing was changed")
                }
                entries.append(StoredProfile(record: record, preferences: profile.preferences, bytes: bytes))
            }
            let answer = try body(&entries, &index)
            entries.sort { $0.record.sequence < $1.record.sequence }
            let tree = ManagedTree.derive(entries.map { ($0.record, $0.preferences) })
            index.profiles = entries.map(\.record)
            index.forcedBy = tree.forcedBy
            index.conflicts = tree.conflicts
            var manifest = ApplicationManifest()
            if let root = applicationRoot {
                manifest = try ApplicationPolicies.derive(tree: tree, previous: live, root: root)
                if let note = ApplicationPolicies.userScopedNote(domains: tree.forced.filter { $0.key != .system }.flatMap(\.value.keys)) {
                    manifest.notes.append(note)
                }
            }
            try replaceTree(with: tree, index: index, entries: entries, applications: manifest)
            return answer(tree, applicationRoot.map { manifest.apply(root: $0) } ?? [])
        }
    }

    /// Removes what a crash left: staging trees (new ones never made live,
    /// or old ones not yet removed).
    func removeLeftovers() throws(ProfileError) {
        for name in FileIO.directoryEntries(managedDirectory) ?? [] where name.hasPrefix(Self.stagingPrefix) {
            do { try FileIO.removeTree(managedDirectory + "/" + name) } catch {
                throw ProfileError(managedDirectory + "/" + name, "a leftover of an interrupted change cannot be removed: \(error.reason)")
            }
        }
    }

    /// Writes the tree beside the live one and exchanges the two.
    func replaceTree(with tree: ManagedTree, index: ProfileIndex, entries: [StoredProfile], applications: ApplicationManifest) throws(ProfileError) {
        let staging = managedDirectory + "/" + Self.stagingPrefix + "\(Environment.processID)"
        do {
            // Exact modes, whatever root's umask: every user's processes must read the forced files.
            try FileIO.makeDirectoryExactly(staging, permissions: 0o755)
            try FileIO.makeDirectoryExactly(staging + "/installed", permissions: 0o700)
            for e in entries {
                try FileIO.createNew(staging + "/installed/" + e.record.file, bytes: e.bytes, mode: 0o600)
            }
            var targets = Set(tree.forced.keys).union(tree.setOnce.keys)
            targets.insert(.system)
            for target in targets {
                let folder = Self.folder(of: target, in: staging)
                if case .user(let name) = target {
                    if !FileStatus.exists(staging + "/users") { try FileIO.makeDirectoryExactly(staging + "/users", permissions: 0o755) }
                    try FileIO.makeDirectoryExactly(staging + "/users/" + name, permissions: 0o755)
                }
                let forced = tree.forced[target] ?? [:]
                try FileIO.makeDirectoryExactly(folder + "/forced", permissions: 0o755)
                for (domain, values) in forced {
                    try FileIO.createNew(folder + "/forced/" + PreferencesLayout.fileStem(for: domain) + ".plist",
                                         bytes: try Self.encode(.dictionary(values)), mode: 0o644)
                }
                if let once = tree.setOnce[target], !once.isEmpty {
                    try FileIO.createNew(folder + "/set-once.plist", bytes: try Self.encode(.array(once.map(\.propertyList))), mode: 0o644)
                }
            }
            try FileIO.createNew(staging + "/index.plist", bytes: try Self.encode(index.propertyList), mode: 0o644)
            try FileIO.createNew(staging + "/" + ApplicationManifest.fileName, bytes: try Self.encode(applications.propertyList), mode: 0o644)
        } catch let error as FileError {
            try? FileIO.removeTree(staging)
            throw ProfileError(error.path, "the new managed preferences cannot be written (\(error.reason)); nothing was changed")
        } catch let error as ProfileError {
            try? FileIO.removeTree(staging)
            throw error
        } catch {
            try? FileIO.removeTree(staging)
            throw ProfileError(staging, "\(error); nothing was changed")
        }
        FileIO.syncFileSystem(containing: staging)
        do {
            if FileStatus.exists(directory) {
                try FileIO.exchange(staging, directory)
            } else {
                try FileIO.rename(staging, to: directory)
            }
        } catch {
            try? FileIO.removeTree(staging)
            throw ProfileError(directory, "the new managed preferences cannot be put in place (\(error.reason)); nothing was changed")
        }
        FileIO.syncDirectory(managedDirectory)
        // The previous tree is now at the staging name. Watchers still watch
        // its `forced` folders: renaming each tells every watcher at once (one
        // event) to look at the live path again, where deleting its files one
        // by one would wake every watcher for every file.
        var oldForced = [staging + "/forced"]
        for name in FileIO.directoryEntries(staging + "/users") ?? [] { oldForced.append(staging + "/users/" + name + "/forced") }
        for folder in oldForced { try? FileIO.rename(folder, to: folder + ".removed") }
        try? FileIO.removeTree(staging)
    }

    static func encode(_ value: PropertyList) throws(ProfileError) -> [UInt8] {
        do { return try value.encoded(as: .xml) } catch { throw ProfileError("", "cannot be written as a property list: \(error)") }
    }

    /// A user name that can be a folder name.
    static func checkUserName(_ name: String) throws(ProfileError) {
        let bad = name.isEmpty || name == "." || name == ".." || name.contains("/")
            || name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        if bad { throw ProfileError("", "\"\(name)\" is not a user name") }
    }
}
