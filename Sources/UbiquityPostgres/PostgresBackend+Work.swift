extension PostgresBackend {
    /// Commits waiting and the writers at work (``PostgresBackend/work``).
    struct Work {
        var jobs: [Job] = []
        /// The writers at work. They are answered and let go when the pool is
        /// replaced (their connections died with the database, and a query on
        /// a dead connection was seen to wait until the pool closed).
        var runs: [ObjectIdentifier: Run] = [:]
        /// Stores in a transaction of this server: their next commits wait and go together.
        var busyStores: Set<String> = []
        /// Whether the deadline sweeper is running (``sweep()``).
        var sweeping = false
    }
}
