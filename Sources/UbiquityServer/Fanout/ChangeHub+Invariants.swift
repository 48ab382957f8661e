import PlatformIO
import SharedTables
import Synchronization

extension ChangeHub {
    /// No store keeps an empty list of watchers or streams; each is filed under its own identity
    /// and store; a known revision is never negative; the table of revisions stays bounded.
    func _checkInvariants() {
        subscribers.withLock { s in
            for (key, subs) in s {
                precondition(!subs.isEmpty, "ChangeHub: an empty watcher list kept for \(key.store)")
                for (id, sub) in subs { precondition(id == ObjectIdentifier(sub), "ChangeHub: a watcher filed under another's identity") }
            }
        }
        streams.withLock { s in
            for (key, open) in s {
                precondition(!open.isEmpty, "ChangeHub: an empty stream list kept for \(key.store)")
                for (id, stream) in open {
                    precondition(id == ObjectIdentifier(stream), "ChangeHub: a stream filed under another's identity")
                    precondition(stream.keys.contains(key), "ChangeHub: a stream of \(stream.keys.map(\.store)) filed under \(key.store)")
                }
            }
        }
        known.withLock { k in
            precondition(k.revisions.count <= 1_000_000, "ChangeHub: \(k.revisions.count) revisions known, above 1,000,000")
            for (key, revision) in k.revisions { precondition(revision >= 0, "ChangeHub: revision \(revision) known of \(key.store)") }
        }
    }
}
