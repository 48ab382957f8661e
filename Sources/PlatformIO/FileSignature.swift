/// What identifies one version of a file: its status (device, inode, size,
/// change and modification times, kind, owner, permissions). A rename over
/// the file or a write to it changes it.
package struct FileSignature: Sendable, Hashable {
    /// The file's status when the signature was taken.
    package let status: FileStatus

    /// True for a regular file.
    package var isRegularFile: Bool { status.kind == .regular }
    /// The size in bytes.
    package var size: Int64 { status.size }
    /// The inode: which file this is on its device.
    package var inode: UInt64 { status.inode }

    /// The signature of the file at `path` (following links), or nil when
    /// there is none or it cannot be examined (see ``lookup(_:)`` for why).
    package init?(path: String) {
        guard let status = try? FileStatus.of(path) else { return nil }
        self.status = status
    }

    /// The signature of the file at `path` (following links): nil when no
    /// file is there (`ENOENT`, `ENOTDIR`), an error with the path and the
    /// system's reason when it cannot be examined.
    ///
    /// ```swift
    /// switch FileSignature.lookup(path) { case .success(let s?): … case .success(nil): … case .failure(let e): … }
    /// ```
    package static func lookup(_ path: String) -> Result<FileSignature?, FileError> {
        do { return .success(FileSignature(status: try FileStatus.of(path))) } catch {
            return error.isNotFound ? .success(nil) : .failure(error)
        }
    }

    private init(status: FileStatus) {
        self.status = status
    }
}
