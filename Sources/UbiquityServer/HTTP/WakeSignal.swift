import PlatformIO
import SharedTables
import Synchronization

/// Wakes one waiter early; a signal that comes while nobody waits is kept for
/// the next wait, so none is lost.
///
/// ```swift
/// await signal.wait(upTo: .seconds(5))   // returns at `signal.signal()` or after 5 s
/// ```
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>? = nil
        /// Counts waits, so that a timer wakes only the wait it was set for.
        var waits = 0
    }
    private let state = Lock(State())

    /// Wakes the waiter, or the next wait.
    func signal() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let w = s.waiter else { s.pending = true; return nil }
            s.waiter = nil
            return w
        }
        waiter?.resume()
    }

    /// Returns at the next ``signal()`` (at once if one came since the last
    /// wait) or after `timeout`, whichever is first. One waiter at a time.
    func wait(upTo timeout: Duration) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let wait = state.withLock { s -> Int? in
                if s.pending { s.pending = false; return nil }
                s.waits += 1
                s.waiter = c
                return s.waits
            }
            guard let wait else { return c.resume() }
            Task {
                try? await Task.sleep(for: timeout)
                let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
                    guard s.waits == wait, let w = s.waiter else { return nil }
                    s.waiter = nil
                    return w
                }
                waiter?.resume()
            }
        }
    }
}
