
/// Why a persistent domain could not be read or written.
///
/// ```swift
/// do { try defaults.synchronizeOrThrow() } catch let error as StorageError { print(error) }
/// ```
public struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The file exists but cannot be read (permissions, a directory in the way).
        case unreadable
        /// The file could not be parsed; it was moved aside to `movedTo`.
        case corrupt(movedTo: String?)
        /// The file could not be written (permissions, disk full, read-only file system).
        case unwritable
        /// The value cannot be stored (not a property list, or a bad domain name).
        case invalidValue
    }

    /// The domain.
    public var domain: String
    /// The file involved.
    public var path: String
    /// What happened.
    public var kind: Kind
    /// The system's or the parser's explanation.
    public var reason: String

    public init(domain: String, path: String, kind: Kind, reason: String) {
        self.domain = domain
        self.path = path
        self.kind = kind
        self.reason = reason
    }

    public var description: String {
        switch kind {
        case .unreadable: "cannot read domain \(domain) from \(path): \(reason)"
        case .corrupt(let moved):
            "domain \(domain): \(path) could not be parsed (\(reason)); "
                + (moved.map { "it was moved to \($0) and the domain starts empty" } ?? "it was left in place and the domain reads as empty")
        case .unwritable: "cannot write domain \(domain) to \(path): \(reason); the previous file is intact and the change is kept in memory"
        case .invalidValue: "domain \(domain): \(reason)"
        }
    }
}
