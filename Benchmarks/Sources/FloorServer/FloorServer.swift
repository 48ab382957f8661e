// The floors' servers (http-floor, fleet-floor): a Hummingbird application on the sync server's
// stack, on a free loopback port, that prints its base URL on a line of its own once it listens.
import Glibc
import Hummingbird

/// Runs `router` on 127.0.0.1 at a port the system picks, until the process ends. The URL is
/// written straight to the file descriptor: stdout's buffer is not flushed until exit.
public func serveOnLoopback(_ router: Router<BasicRequestContext>) async throws {
    let app = Application(
        router: router,
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in
            let line = Array("http://127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8)
            _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        }
    )
    try await app.runService()
}
