import UbiquityBackend

extension PostgresBackend.Work {
    /// At most ``PostgresBackend/writers`` writers, each filed under its own identity; a store is
    /// busy exactly while one writer (and only one) holds commits of it; the sweeper runs while
    /// any commit waits or is under way.
    func _checkInvariants() {
        precondition(runs.count <= PostgresBackend.writers, "Work: \(runs.count) writers at work, above \(PostgresBackend.writers)")
        var held: Set<String> = []
        for (id, run) in runs {
            precondition(id == ObjectIdentifier(run), "Work: a writer filed under another's identity")
            let stores = Set(run.jobs.map(\.storeKey))
            precondition(held.isDisjoint(with: stores), "Work: two writers hold one store")
            held.formUnion(stores)
        }
        precondition(held == busyStores, "Work: \(busyStores.count) stores marked busy, \(held.count) held by writers")
        precondition(sweeping || (jobs.isEmpty && runs.isEmpty), "Work: commits waiting or under way with no sweeper for their deadlines")
    }

    /// Run after every change in debug builds: O(the commits under way), next to a database
    /// transaction per group.
    @inline(__always)
    func _checkInvariantsAfterChange() {
        #if DEBUG
        _checkInvariants()
        #endif
    }
}
