#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PlatformIO
import PropertyList
import Synchronization

/// The values an administrator forces for one domain, from
/// `<managed>/<domain>.plist` (everyone) and
/// `<managed>/users/<name>/<domain>.plist` (one user, which wins).
///
/// A file is honoured only when it is a regular file owned by root and not
/// writable by group or others, in a directory with the same properties, so
/// that a user cannot forge a "managed" value. A file that fails the check is
/// ignored and reported.
///
/// ```swift
/// let forced = DomainStore.shared.managedDomain("com.example.app")
/// forced.value(forKey: "UpdateURL")   // the administrator's value, if any
/// ```
public final class ManagedDomain: Sendable {
    /// The domain's name.
    public let name: String
    /// The files consulted, in increasing precedence.
    public let paths: [String]
    private let values: Lock<[String: PropertyList]>
    /// Stores are never deallocated (see ``PersistentDomain``).
    private unowned(unsafe) let store: DomainStore

    init(name: String, paths: [String], store: DomainStore) {
        self.name = name
        self.paths = paths
        self.store = store
        self.values = Lock([:])
        reload()
    }

    /// The forced value of `key`, if any.
    @inline(__always)
    public func value(forKey key: String) -> PropertyList? { values.withLock { $0[key] } }

    /// Every forced key and value.
    public var entries: [String: PropertyList] { values.withLock { $0 } }

    /// Re-reads the managed files.
    public func reload() {
        var merged: [String: PropertyList] = [:]
        for path in paths {
            guard let signature = FileSignature(path: path) else { continue }
            let directory = FileIO.parentDirectory(of: path)
            guard Self.isTrusted(signature), let dirSignature = FileSignature(path: directory), Self.isTrustedDirectory(dirSignature) else {
                store.report(StorageError(domain: name, path: path, kind: .unreadable,
                    reason: "ignored: managed preferences must be owned by root and not writable by group or others (file and folder)"))
                continue
            }
            switch DomainFile(domain: name, path: path).read() {
            case .loaded(let entries, _, _): merged.merge(entries) { _, user in user }
            case .corrupt(let error):
                store.report(StorageError(domain: name, path: path, kind: .corrupt(movedTo: nil), reason: error.description))
            case .unreadable(let error): store.report(error)
            case .absent: break
            }
        }
        values.withLock { $0 = merged }
    }

    static func isTrusted(_ s: FileSignature) -> Bool {
        s.isRegularFile && s.owner == 0 && s.mode & 0o022 == 0
    }

    static func isTrustedDirectory(_ s: FileSignature) -> Bool {
        s.owner == 0 && s.mode & 0o022 == 0
    }
}
