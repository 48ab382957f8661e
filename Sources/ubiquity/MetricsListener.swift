import HTTPGuards
import Hummingbird
import HummingbirdCore
import NIOCore
import Logging
import PlatformIO
import Prometheus
import ServiceLifecycle

/// `GET /metrics` in Prometheus' text format, on a listener of its own
/// (`--metrics 127.0.0.1:9470`): loopback only, answering only its own Host
/// names and only that one path. A scraper elsewhere reaches it through a
/// proxy that adds TLS and authentication.
///
/// Its connections are bounded like the sync server's: at most
/// ``maximumConnections`` (the longest idle closed to admit another) and
/// ``idleTimeout`` of idleness, so that another local user holding sockets
/// open cannot use up the descriptors the sync server shares with it.
struct MetricsListener: Service {
    let host: String
    let port: Int
    let registry: PrometheusCollectorRegistry
    let onRunning: @Sendable (Int) -> Void

    /// The most connections kept open (scrapers are few).
    static let maximumConnections = 32
    /// Seconds a connection may stay idle or sending its request.
    static let idleTimeout: Int64 = 10
    /// The longest request head (a scrape's is a few hundred bytes).
    static let maximumHead = 8 << 10

    func run() async throws {
        let registry = self.registry
        let allowed = HostNames.answered(listeningOn: host, allowed: [])
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            guard let name = HostNames.name(ofHostHeader: request.head.authority ?? ""), allowed.contains(name) else {
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
        let governor = ConnectionGovernor(limit: Self.maximumConnections)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [governor.handler()],
            idleTimeout: .seconds(Self.idleTimeout),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: Self.maximumHead, maxHeaderListSize: Self.maximumHead, maxHeaderFieldCount: 64))
        let app = Application(
            responder: responder,
            server: HTTPServerBuilder { responder in HTTP1Channel(responder: responder, configuration: http1) },
            configuration: .init(address: .hostname(host, port: port), serverName: "ubiquity-metrics"),
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        do {
            try await app.run()
        } catch {
            guard let reason = ListenFailure.reason(error, host: host, port: port, option: "--metrics") else { throw error }
            throw ListenFailure.Failed("metrics: " + reason)
        }
    }
}
