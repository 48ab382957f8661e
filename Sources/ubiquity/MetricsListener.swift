import Hummingbird
import Logging
import PlatformIO
import Prometheus
import ServiceLifecycle

/// `GET /metrics` in Prometheus' text format, on a listener of its own
/// (`--metrics 127.0.0.1:9470`): loopback only, answering only its own Host
/// names and only that one path. A scraper elsewhere reaches it through a
/// proxy that adds TLS and authentication.
struct MetricsListener: Service {
    let host: String
    let port: Int
    let registry: PrometheusCollectorRegistry
    let onRunning: @Sendable (Int) -> Void

    func run() async throws {
        let registry = self.registry
        let host = self.host
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            let allowed = ["127.0.0.1", "localhost", "[::1]", host.contains(":") ? "[\(host)]" : host]
            let authority = (request.head.authority ?? "").lowercased()
            let name = authority.hasPrefix("[") ? String(authority.prefix { $0 != "]" }) + "]" : String(authority.split(separator: ":").first ?? "")
            guard allowed.contains(name) else {
                return Response(status: .misdirectedRequest, body: .init(byteBuffer: ByteBuffer(string: "unknown Host\n")))
            }
            guard request.method == .get, request.uri.path == "/metrics" else {
                return Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "only GET /metrics here\n")))
            }
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
        }
        var logger = Logger(label: "ubiquity.metrics")
        logger.logLevel = .warning
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname(host, port: port), serverName: "ubiquity-metrics"),
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        try await app.run()
    }
}
