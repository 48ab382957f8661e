import PlatformIO
import SharedTables
import Synchronization

extension PostgresBackend {
    /// Resumes a continuation once, from whichever side finishes first.
    final class Once<Value: Sendable>: Sendable {
        struct State {
            var resume: (@Sendable (Value) -> Void)?
            var done = false
        }
        let state = Lock(State())
        func set(_ resume: @escaping @Sendable (Value) -> Void) { state.withLock { $0.resume = resume } }
        @discardableResult
        func finish(_ value: Value) -> Bool {
            let r = state.withLock { s -> (@Sendable (Value) -> Void)? in
                guard !s.done else { return nil }
                s.done = true
                return s.resume
            }
            r?(value)
            return r != nil
        }
    }
}
