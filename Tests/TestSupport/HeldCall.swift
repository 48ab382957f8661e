import Foundation
import Synchronization

/// A callback that holds the first call it gets until released: while it is
/// held, the thread that made the call (a file watcher's, say) does nothing
/// else, so the state it would have updated is certainly stale.
///
/// ```swift
/// let held = HeldCall()
/// let token = store.observe { _ in held.call() }
/// defer { held.release(); withExtendedLifetime(token) {} }
/// // … a write the watcher reports; then:
/// #expect(eventually { held.entered })
/// ```
public final class HeldCall: Sendable {
    private let state = Mutex((entered: false, released: false, held: false))

    public init() {}

    /// Holds the first caller until ``release()``; later calls return at once.
    public func call() {
        let hold = state.withLock { s -> Bool in
            if s.held { return false }
            s.held = true
            s.entered = true
            return true
        }
        guard hold else { return }
        while !state.withLock({ $0.released }) { usleep(1000) }
    }

    /// Whether the first call has come (and is held, unless released).
    public var entered: Bool { state.withLock { $0.entered } }

    /// Lets the held call, and every later one, return.
    public func release() { state.withLock { $0.released = true } }
}
