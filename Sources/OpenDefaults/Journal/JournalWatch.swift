import PlatformIO
import SharedTables
import Synchronization

/// What the watcher watches for a journaled domain besides its file: the
/// domain's journal folder, where a journal closed for writing
/// (`IN_CLOSE_WRITE`) means its owner exited — by a clean exit, which left
/// nothing to replay, or by death, which may have. Either way the domain's
/// orphans are recovered at once, so a process already running sees a dead
/// process's writes without waiting for its own next flush.
///
/// Only a journal's owner opens it for writing (recovery reads), so the
/// event is never caused by another process looking at it.
final class JournalWatch: WatchTarget {
    /// The file name the watcher matches against every `*.journal` closed in the folder.
    static let pattern = "*.journal"

    /// The domain owns this watch (``PersistentDomain/journalWatch``); weak,
    /// since the watcher's thread may hold the watch while the domain goes.
    private let domain: Lock<Weak<PersistentDomain>>
    let watchedPaths: [String]

    init(_ domain: PersistentDomain) {
        self.domain = Lock(Weak(domain))
        self.watchedPaths = [DomainJournal.folder(forDomainFile: domain.path) + "/" + Self.pattern]
    }

    func watchedFileChanged() {
        // A failure is recorded and reported by the flush that met it.
        try? domain.withLock { $0.object }?.recoverOrphans()
    }
}
