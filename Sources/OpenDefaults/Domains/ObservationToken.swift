import PlatformIO
import SharedTables
import Synchronization

/// Ends an observation when released (or when ``cancel()`` is called).
public final class ObservationToken: Sendable {
    private let onCancel: Lock<(@Sendable () -> Void)?>

    init(_ onCancel: @escaping @Sendable () -> Void) { self.onCancel = Lock(onCancel) }

    /// Ends the observation now.
    public func cancel() {
        let action = onCancel.withLock { a -> (@Sendable () -> Void)? in
            defer { a = nil }
            return a
        }
        action?()
    }

    deinit { cancel() }
}
