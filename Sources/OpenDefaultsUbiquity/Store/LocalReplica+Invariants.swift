@_spi(Engine) import OpenDefaults
import PlatformIO
import SharedTables
import PropertyList
import Synchronization

extension LocalReplica {
    /// The size book matches the values.
    func _checkInvariants() {
        book.withLock { b in
            let entries = values.entries
            precondition(b.sizes.count == entries.count, "size book lists \(b.sizes.count) keys, the values \(entries.count)")
            precondition(b.total == b.sizes.values.reduce(0, +), "size book total is off")
        }
    }

    /// Run after loading in debug builds built with `-Xswiftc -DOPENDEFAULTS_INTERNAL_CHECKS`
    /// (the whole check is O(keys)).
    @inline(__always)
    func _checkInvariantsAfterChange() {
        #if DEBUG && OPENDEFAULTS_INTERNAL_CHECKS
        _checkInvariants()
        #endif
    }
}
