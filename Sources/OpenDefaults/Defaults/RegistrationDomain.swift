import PlatformIO
import PropertyList
import Synchronization

/// `NSRegistrationDomain`: the defaults an application registers with
/// `register(defaults:)`, shared by every ``Defaults`` in the process and
/// never saved.
enum RegistrationDomain {
    static let name = "NSRegistrationDomain"
    static let values = Lock<[LiteralString: PropertyList]>([:])
    /// Incremented by every change, so that instances refresh their view.
    static let version = Atomic<UInt64>(0)

    static func register(_ entries: [LiteralString: PropertyList]) {
        values.withLock { $0.merge(entries) { _, new in new } }
        version.add(1, ordering: .releasing)
    }

    static func replace(_ entries: [LiteralString: PropertyList]) {
        values.withLock { $0 = entries }
        version.add(1, ordering: .releasing)
    }
}
