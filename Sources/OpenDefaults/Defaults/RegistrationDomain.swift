import PlatformIO
import SharedTables
import PropertyList
import Synchronization

/// `NSRegistrationDomain`: the defaults an application registers with
/// `register(defaults:)`, shared by every ``Defaults`` over one store
/// (``DefaultsContext``: for ``DomainStore/shared``, the whole process) and
/// never saved.
final class RegistrationDomain: Sendable {
    static let name = "NSRegistrationDomain"
    let values = Lock<[LiteralString: PropertyList]>([:])
    /// Incremented by every change, so that instances refresh their view.
    let version = Atomic<UInt64>(0)

    func register(_ entries: [LiteralString: PropertyList]) {
        values.withLock { $0.merge(entries) { _, new in new } }
        version.add(1, ordering: .releasing)
    }

    func replace(_ entries: [LiteralString: PropertyList]) {
        values.withLock { $0 = entries }
        version.add(1, ordering: .releasing)
    }
}
