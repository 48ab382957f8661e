import PlatformIO
import ServiceLifecycle
import Synchronization

/// Tells the service manager the server is alive (`WATCHDOG=1`) at half the
/// interval it expects, from the moment it is ready until it starts to
/// stop. A server whose tasks no longer run stops sending, and systemd
/// restarts it.
struct Watchdog: Service {
    let interval: Duration
    let ready: Readiness

    /// Set once the server listens (after `READY=1`).
    final class Readiness: Sendable {
        private let flag = Atomic<Bool>(false)
        func set() { flag.store(true, ordering: .releasing) }
        var isSet: Bool { flag.load(ordering: .acquiring) }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                if ready.isSet { ServiceManager.notify("WATCHDOG=1") }
                try? await Task.sleep(for: interval / 2)
            }
        }
    }
}
