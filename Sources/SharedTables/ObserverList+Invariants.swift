extension ObserverList {
    /// One id per handler, increasing, all below the next one given.
    package func _checkInvariants() {
        precondition(ids.count == handlers.count, "ObserverList: \(ids.count) ids for \(handlers.count) handlers")
        for i in ids.indices.dropFirst() { precondition(ids[i - 1] < ids[i], "ObserverList: ids out of order at \(i)") }
        if let last = ids.last { precondition(last < next, "ObserverList: id \(last) not below the next, \(next)") }
    }

    /// Run after every change in debug builds built with `-Xswiftc -DOPENDEFAULTS_INTERNAL_CHECKS`
    /// (the whole check is O(observers)).
    @inline(__always)
    func _checkInvariantsAfterChange() {
        #if DEBUG && OPENDEFAULTS_INTERNAL_CHECKS
        _checkInvariants()
        #endif
    }
}
