import PlatformIO
import SharedTables
import UbiquityBackend
import Synchronization

/// A long poll in progress, known by its token so that a revocation ends it
/// at once (as it ends event streams) instead of letting it deliver a commit
/// made after the revocation.
final class LongPoll: Revocable {
    private let state = Lock<(revoked: Bool, cancel: (@Sendable () -> Void)?)>((false, nil))

    /// Runs `wait` (the poll's wait for changes) in a task that a revocation or the
    /// caller's cancellation cancels; nil when the token was revoked meanwhile.
    func run<T: Sendable>(_ wait: @escaping @Sendable () async -> T) async -> T? {
        let task = Task { await wait() }
        let revokedAlready = state.withLock { s -> Bool in
            s.cancel = { task.cancel() }
            return s.revoked
        }
        if revokedAlready { task.cancel() }
        let value = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        return state.withLock { $0.revoked } ? nil : value
    }

    func end() {
        let cancel = state.withLock { s -> (@Sendable () -> Void)? in
            s.revoked = true
            return s.cancel
        }
        cancel?()
    }
}
