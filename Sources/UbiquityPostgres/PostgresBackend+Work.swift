import UbiquityBackend

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

        /// A writer's new group, on `task`: every waiting commit of a store no writer holds,
        /// its stores marked busy. Nil when there is none, or ``PostgresBackend/writers`` are
        /// at work.
        mutating func take(now: ContinuousClock.Instant, task: TaskSlot) -> Run? {
            guard runs.count < PostgresBackend.writers, !jobs.isEmpty else { return nil }
            let held = busyStores
            let share = Set(jobs.lazy.map(\.storeKey).filter { !held.contains($0) })
            guard !share.isEmpty else { return nil }
            var taken: [Job] = [], waiting: [Job] = []
            for job in jobs {
                if share.contains(job.storeKey) { taken.append(job) } else { waiting.append(job) }
            }
            busyStores.formUnion(share)
            jobs = waiting
            let run = Run(taken, started: now, task: task)
            runs[ObjectIdentifier(run)] = run
            return run
        }

        /// Lets a writer's group go: its stores and its place are free again. False when it was
        /// let go already.
        mutating func letGo(_ run: Run) -> Bool {
            guard runs.removeValue(forKey: ObjectIdentifier(run)) != nil else { return false }
            for job in run.jobs { busyStores.remove(job.storeKey) }
            return true
        }
    }
}
