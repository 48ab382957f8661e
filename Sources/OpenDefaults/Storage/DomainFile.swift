import PlatformIO
import PropertyList

/// One domain's file on disk: reading it (telling absent, unreadable and
/// corrupt apart), writing it durably, and moving a corrupt one aside.
struct DomainFile: Sendable {
    let domain: String
    let path: String
    /// The permission bits of a new file: 0600 for the current user's
    /// domains (as macOS preference files), 0644 for any user's. A file that
    /// is replaced keeps its own.
    let mode: UInt32
    /// Why this domain has no file (a domain name that is not a file name):
    /// reads find it empty and writes fail with this error.
    let refusal: StorageError?
    /// Whether writes are journaled (proposal 0007): named domains; not a
    /// domain kept in an arbitrary file (the `defaults` tool's path form).
    let journaled: Bool

    init(domain: String, path: String, mode: UInt32 = 0o600, refusal: StorageError? = nil, journaled: Bool = false) {
        self.domain = domain
        self.path = path
        self.mode = mode
        self.refusal = refusal
        self.journaled = journaled && refusal == nil
    }

    enum Contents {
        /// No file: the domain is empty.
        case absent
        /// A file that cannot be read; it is left alone.
        case unreadable(StorageError)
        /// A file that cannot be parsed, or whose root is not a dictionary.
        case corrupt(PropertyListError)
        /// The domain's entries, the file's format and its signature.
        case loaded([LiteralString: PropertyList], PropertyListFormat, FileSignature)
    }

    /// Reads and parses the file. A read that fails (permissions, an I/O
    /// error, something that is not a regular file) is `unreadable`, never
    /// `corrupt`: only what was read whole and failed to parse is corrupt.
    func read() -> Contents {
        if refusal != nil { return .absent }
        let signature: FileSignature
        switch FileSignature.lookup(path) {
        case .success(nil): return .absent
        case .success(let s?): signature = s
        case .failure(let error):
            return .unreadable(StorageError(domain: domain, path: path, kind: .unreadable, reason: error.reason))
        }
        guard signature.isRegularFile else {
            return .unreadable(StorageError(domain: domain, path: path, kind: .unreadable, reason: "not a regular file"))
        }
        let bytes: [UInt8]
        do { bytes = try FileIO.readRegularFile(path) } catch {
            if error.isNotFound { return .absent }
            return .unreadable(StorageError(domain: domain, path: path, kind: .unreadable, reason: error.reason))
        }
        if bytes.isEmpty {
            return .corrupt(PropertyListError(format: nil, location: .whole, reason: "the file is empty"))
        }
        do {
            let (value, format) = try PropertyList.decode(bytes)
            guard case .dictionary(let entries) = value else {
                return .corrupt(PropertyListError(format: format, location: .whole,
                    reason: "expected a dictionary at the root, found a \(value.kind.rawValue)"))
            }
            return .loaded(entries, format, signature)
        } catch {
            return .corrupt(error)
        }
    }

    /// Writes the entries in `format` (binary when the format cannot hold
    /// them), creating the directory when needed: a new file gets ``mode``,
    /// a replaced one keeps its mode and owner. Returns the new signature.
    func write(_ entries: [LiteralString: PropertyList], format: PropertyListFormat) throws(StorageError) -> FileSignature? {
        if let refusal { throw refusal }
        let value = PropertyList.dictionary(entries)
        let bytes = (try? value.encoded(as: format)) ?? (try! value.encoded(as: .binary))
        do {
            try FileIO.makeDirectories(FileIO.parentDirectory(of: FileIO.resolvingLinkForWriting(path)))
            try FileIO.write(bytes, to: path, mode: mode)
        } catch {
            throw StorageError(domain: domain, path: path, kind: .unwritable, reason: error.reason)
        }
        return FileSignature(path: path)
    }

    /// Removes the file (the whole domain deleted). A missing file is fine.
    func remove() throws(StorageError) {
        if let refusal { throw refusal }
        let target: String
        do { target = try FileIO.resolvingLinkForWriting(path) } catch {
            throw StorageError(domain: domain, path: path, kind: .unwritable, reason: error.reason)
        }
        do { try FileIO.remove(target) } catch {
            if !error.isNotFound { throw StorageError(domain: domain, path: path, kind: .unwritable, reason: error.reason) }
        }
        FileIO.syncDirectory(FileIO.parentDirectory(of: target))
    }

    /// Renames a corrupt file to `<file>.corrupt-<UTC time>` beside it; never deletes it.
    func moveAside() -> String? {
        guard let target = try? FileIO.resolvingLinkForWriting(path) else { return nil }
        let stamp = Environment.utcTimestamp()
        var destination = target + ".corrupt-" + stamp
        var n = 1
        while FileStatus.exists(destination) { n += 1; destination = target + ".corrupt-\(stamp)-\(n)" }
        guard (try? FileIO.rename(target, to: destination)) != nil else { return nil }
        FileIO.syncDirectory(FileIO.parentDirectory(of: target))
        return destination
    }

    /// The lock file that serializes writers of this domain across processes:
    /// `.<file>.lock` beside the (link-resolved) file.
    var lockPath: String {
        let target = (try? FileIO.resolvingLinkForWriting(path)) ?? path
        return FileIO.parentDirectory(of: target) + "/." + FileIO.lastComponent(of: target) + ".lock"
    }
}
