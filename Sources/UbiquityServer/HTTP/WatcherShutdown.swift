import Logging
import PlatformIO
import ServiceLifecycle

/// Ends the watchers when the server starts to stop (SIGTERM): a service of
/// the server's group, placed after the HTTP server so that it is told
/// first. Event streams end and long polls are answered at once, so the
/// HTTP server's own graceful shutdown — which waits for requests in
/// flight — finishes within a moment instead of a stream's 30 seconds.
struct WatcherShutdown: Service {
    let hub: ChangeHub

    func run() async throws {
        try? await gracefulShutdown()
        ServiceManager.notify("STOPPING=1\nSTATUS=stopping: ending event streams, finishing commits")
        Logger(label: "ubiquity").info("stopping", metadata: ["streams_open": .stringConvertible(hub.openStreamCount)])
        hub.stop()
    }
}
