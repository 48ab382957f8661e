import PlatformIO

/// Copies a bundle's files for installation: regular files and folders are
/// copied; a symbolic link whose target lies inside the bundle is copied as
/// the file or folder it points at; a link that leads outside the bundle,
/// and anything that is not a file, folder or link (a FIFO, a device), makes
/// the copy fail naming it. The installed bundle therefore holds no link.
enum BundleCopy {
    /// How deep links to folders inside the bundle may nest (a link cycle stops here).
    static let maximumDepth = 32

    static func copy(from source: String, to destination: String) throws(SettingsBundleError) {
        guard let root = FileIO.canonicalPath(source) else {
            throw SettingsBundleError(path: source, reason: "cannot resolve the bundle's path")
        }
        try copyFolder(source, to: destination, root: root, depth: 0)
    }

    private static func copyFolder(_ source: String, to destination: String, root: String, depth: Int) throws(SettingsBundleError) {
        guard depth <= maximumDepth else {
            throw SettingsBundleError(path: source, reason: "folders nest deeper than \(maximumDepth) levels (a link cycle?)")
        }
        do {
            try FileIO.makeDirectory(destination, permissions: 0o755)
        } catch {
            throw SettingsBundleError(path: destination, reason: "cannot create the folder: \(error.reason)")
        }
        guard let names = FileIO.directoryEntries(source) else {
            throw SettingsBundleError(path: source, reason: "cannot list the folder")
        }
        for name in names.sorted() {
            let from = source + "/" + name
            let to = destination + "/" + name
            var path = from
            var type = try fileType(path)
            if type == .symbolicLink {
                guard let resolved = FileIO.canonicalPath(from) else {
                    throw SettingsBundleError(path: from, reason: "a symbolic link to nothing; the bundle is not installed")
                }
                guard resolved == root || resolved.hasPrefix(root + "/") else {
                    throw SettingsBundleError(path: from, reason: "a symbolic link to \(resolved), outside the bundle; the bundle is not installed")
                }
                path = resolved
                type = try fileType(path)
            }
            switch type {
            case .directory:
                try copyFolder(path, to: to, root: root, depth: depth + 1)
            case .regular:
                do {
                    let bytes = try FileIO.readRegularFile(path)
                    try FileIO.write(bytes, to: to, mode: 0o644)
                } catch {
                    throw SettingsBundleError(path: from, reason: "cannot copy: \(error.reason)")
                }
            default:
                throw SettingsBundleError(path: from, reason: "not a regular file, folder or link; the bundle is not installed")
            }
        }
    }

    /// The kind of file at `path`, a link itself when it is one.
    private static func fileType(_ path: String) throws(SettingsBundleError) -> FileStatus.Kind {
        do {
            return try FileStatus.of(path, followingLinks: false).kind
        } catch {
            throw SettingsBundleError(path: path, reason: "cannot examine: \(error.reason)")
        }
    }
}
