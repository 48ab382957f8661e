#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PlatformIO
import PropertyList

/// What the installed profiles put in applications' own folders (Chrome
/// family policies, Firefox's `policies.json`, a dconf database), kept in the
/// profile tree as `applications.plist`: the files with their bytes, the
/// folders made for them, and what an earlier change wrote that must go.
///
/// The manifest changes with the tree, in the same exchange; the folders of
/// the applications are then brought to it (``apply(root:)``). A crash
/// after the exchange leaves each application file old or new, whole (each
/// is written beside itself and renamed), and the next change of profiles
/// finishes the job before anything else: the manifest in the live tree is
/// the one source of truth.
///
/// ```swift
/// let problems = manifest.apply(root: "")   // [] once every file is in place and dconf is compiled
/// ```
package struct ApplicationManifest: Sendable, Hashable {
    /// The files that must be in place.
    package var files: [ApplicationFile] = []
    /// Folders made for them (without the root), parents first: removed, when empty, once no file needs them.
    package var folders: [String] = []
    /// Files an earlier change wrote that no profile asks for now: removed while they hold what was written.
    package var stale: [ApplicationFile] = []
    /// Folders an earlier change made that no file needs now.
    package var staleFolders: [String] = []
    /// What an administrator should know: a setting no application reads, and why.
    package var notes: [String] = []

    package init() {}

    /// The name of the manifest in the profile tree.
    static let fileName = "applications.plist"

    // MARK: Storage

    var propertyList: PropertyList {
        .dictionary([
            "Files": .array(files.map(\.propertyList)),
            "Folders": .array(folders.map(PropertyList.string)),
            "Stale": .array(stale.map(\.propertyList)),
            "StaleFolders": .array(staleFolders.map(PropertyList.string)),
            "Notes": .array(notes.map(PropertyList.string)),
        ])
    }

    /// The manifest of the tree at `directory` (empty when it has none: profiles installed before it existed).
    static func read(inTree directory: String) throws(ProfileError) -> ApplicationManifest {
        let path = directory + "/" + fileName
        let bytes: [UInt8]
        do { bytes = try FileIO.read(path, limit: 256 << 20) } catch {
            if error.isNotFound { return ApplicationManifest() }
            throw ProfileError(path, "cannot be read: \(error.reason)")
        }
        guard case .dictionary(let d)? = try? PropertyList(decoding: bytes) else { throw ProfileError(path, "expected a dictionary") }
        var m = ApplicationManifest()
        func strings(_ key: LiteralString) throws(ProfileError) -> [String] {
            guard case .array(let items)? = d[key] else { throw ProfileError(path + " › " + key.string, "expected an array") }
            var out: [String] = []
            for item in items {
                guard case .string(let s) = item else { throw ProfileError(path + " › " + key.string, "expected strings") }
                out.append(s)
            }
            return out
        }
        func fileList(_ key: LiteralString) throws(ProfileError) -> [ApplicationFile] {
            guard case .array(let items)? = d[key] else { throw ProfileError(path + " › " + key.string, "expected an array") }
            var out: [ApplicationFile] = []
            for (i, item) in items.enumerated() { out.append(try ApplicationFile(propertyList: item, place: "\(path) › \(key.string)[\(i)]")) }
            return out
        }
        m.files = try fileList("Files")
        m.folders = try strings("Folders")
        m.stale = try fileList("Stale")
        m.staleFolders = try strings("StaleFolders")
        m.notes = try strings("Notes")
        return m
    }

    // MARK: Bringing the folders to the manifest

    /// Makes every application folder hold what the manifest says: missing
    /// folders made (0755), files written where they differ (beside
    /// themselves, then renamed: 0644), stale files removed while they hold
    /// what was written (a file changed since is left, and named), the dconf
    /// database compiled (``GSettingsTarget/finish(root:changed:keyfiles:)``),
    /// empty stale folders removed. Returns what could not be done, each
    /// naming the file and the reason.
    @discardableResult
    package func apply(root: String) -> [String] {
        var problems: [String] = []
        var dconfChanged = false
        func isDconf(_ path: String) -> Bool { path.hasPrefix(GSettingsTarget.databases + "/") }
        for folder in folders where !FileStatus.exists(root + folder) {
            do { try FileIO.makeDirectoryExactly(root + folder, permissions: 0o755) } catch {
                problems.append("\(root + folder) cannot be created: \(error.reason)")
            }
        }
        for file in files {
            let path = root + file.path
            if let current = try? FileIO.read(path, limit: 64 << 20), current == file.contents { continue }
            do {
                try FileIO.write(file.contents, to: path, mode: 0o644)
                if isDconf(file.path) { dconfChanged = true }
            } catch {
                problems.append("\(file.application): \(path) cannot be written: \(error.reason)")
            }
        }
        for file in stale {
            let path = root + file.path
            guard let current = try? FileIO.read(path, limit: 64 << 20) else { continue }
            guard current == file.contents else {
                problems.append("\(file.application): \(path) was changed by hand since a profile wrote it; it is left in place")
                continue
            }
            do {
                try FileIO.remove(path)
                if isDconf(file.path) { dconfChanged = true }
            } catch {
                problems.append("\(file.application): \(path) cannot be removed: \(error.reason)")
            }
        }
        if let problem = GSettingsTarget.finish(root: root, changed: dconfChanged, keyfiles: files.map(\.path).filter(isDconf)) {
            problems.append(problem)
        }
        for folder in staleFolders.reversed() { _ = FileIO.removeEmptyDirectory(root + folder) }
        return problems
    }
}
