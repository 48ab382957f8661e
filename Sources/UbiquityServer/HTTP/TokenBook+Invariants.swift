import PlatformIO
import SharedTables
import Synchronization

extension TokenBook.State {
    /// Bounded tables, accounts only for a known generation, no empty stream list, every stream
    /// filed under its own identity.
    func _checkInvariants() {
        precondition(accounts.count <= TokenBook.capacity, "TokenBook: \(accounts.count) accounts remembered, above \(TokenBook.capacity)")
        precondition(usesWritten.count <= TokenBook.capacity, "TokenBook: \(usesWritten.count) last uses remembered, above \(TokenBook.capacity)")
        precondition(accounts.isEmpty || generation != nil, "TokenBook: accounts remembered before a token generation was read")
        for (hash, open) in streams {
            precondition(!open.isEmpty, "TokenBook: an empty stream list kept for a token (\(hash.bytes.count) bytes)")
            for (id, stream) in open { precondition(id == ObjectIdentifier(stream), "TokenBook: a stream filed under another's identity") }
        }
    }

    /// Run after every change in debug builds built with `-Xswiftc -DOPENDEFAULTS_INTERNAL_CHECKS`
    /// (the whole check is O(tokens)).
    @inline(__always)
    func _checkInvariantsAfterChange() {
        #if DEBUG && OPENDEFAULTS_INTERNAL_CHECKS
        _checkInvariants()
        #endif
    }
}

extension TokenBook {
    /// ``State/_checkInvariants()`` under the book's lock (for tests).
    func _checkInvariants() { state.withLock { $0._checkInvariants() } }
}
