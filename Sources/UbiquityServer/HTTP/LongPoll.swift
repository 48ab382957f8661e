import PlatformIO
import Synchronization

/// A long poll in progress, known by its token so that a revocation ends it
/// at once (as it ends event streams) instead of letting it deliver a commit
/// made after the revocation.
final class LongPoll: Revocable {
    private let state = Lock<(revoked: Bool, task: Task<Void, Never>?)>((false, nil))

    /// The wait to cancel when the poll is revoked (cancelled at once if it already was).
    func attach(_ task: Task<Void, Never>) {
        let revoked = state.withLock { s -> Bool in
            s.task = task
            return s.revoked
        }
        if revoked { task.cancel() }
    }

    /// Whether the token was found revoked while the poll waited.
    var revoked: Bool { state.withLock { $0.revoked } }

    func end() {
        let task = state.withLock { s -> Task<Void, Never>? in
            s.revoked = true
            return s.task
        }
        task?.cancel()
    }
}
