public import Foundation

/// Folders a test makes under the temporary directory, each removed by its
/// owner when done and, whatever was written into it since (a flush scheduled
/// before the owner went away, a child process that outlived its test), again
/// when the test process exits: a run leaves nothing in `/tmp`.
///
/// ```swift
/// let root = try ScratchFolders.make("opendefaults")   // /tmp/opendefaults-<UUID>
/// defer { ScratchFolders.remove(root) }
/// ```
public enum ScratchFolders {
    private static let made = Locked<[String]>([])
    private static let registered: Void = { atexit { ScratchFolders.removeAll() } }()

    /// A new, empty folder `<temporary directory>/<prefix>-<UUID>`.
    public static func make(_ prefix: String) throws -> URL {
        _ = registered
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        made.mutate { $0.append(url.path) }
        return url
    }

    /// Removes `url` now (it is removed again at exit, if anything made it anew).
    public static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    private static func removeAll() {
        for path in made.value { try? FileManager.default.removeItem(atPath: path) }
    }
}
