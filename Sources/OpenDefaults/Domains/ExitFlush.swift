import PlatformIO
import SharedTables
import Synchronization

/// Flushes the pending changes of every store still alive when the process
/// exits normally. It holds stores weakly: a store released earlier flushed
/// itself then (``DomainStore``'s deinit), and is not kept alive for this.
enum ExitFlush {
    private static let stores = Lock<[Weak<DomainStore>]>([])
    private static let registered = Atomic<Bool>(false)

    static func register(_ store: DomainStore) {
        stores.withLock { s in
            s.removeAll { $0.object == nil }
            s.append(Weak(store))
        }
        if !registered.exchange(true, ordering: .relaxed) {
            Environment.atExit { ExitFlush.flush() }
        }
    }

    static func flush() {
        let all = stores.withLock { $0.compactMap(\.object) }
        for store in all {
            try? store.flushAll()
            // No journal is left behind by a clean exit (unless its changes could not be written).
            for domain in store.loadedDomains { domain.closeJournal() }
        }
    }
}
