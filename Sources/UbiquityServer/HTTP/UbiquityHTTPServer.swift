import HTTPGuards
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import PlatformIO
import ServiceLifecycle
import UbiquityProtocol
import UnixSignals

/// The sync server on Hummingbird: HTTP/1.1 (TLS when given a certificate),
/// idle connections closed, connections capped (``ConnectionGovernor``: idle
/// unauthenticated ones shed first), every request admitted on its head
/// before any body is read, bodies bounded in size and in time
/// (``BodyReading``), requests handed to a ``UbiquityService``.
package struct UbiquityHTTPServer: Sendable {
    package var host: String
    package var port: Int
    package var tls: (certificate: String, key: String)?
    /// Seconds a connection may stay idle; longer than the longest long poll.
    package var idleTimeout: Int = 60
    /// The most connections open at once (the caller keeps it below the file limit).
    package var maxConnections: Int = 10_240
    /// The longest request head (an Authorization header and a path need far less).
    package var maximumHead: Int = 16 << 10
    /// A body's minimum rate after its grace period (``BodyReading``).
    package var bodyMinimumRate: Int = BodyReading.defaultMinimumRate
    package var bodyGrace: Duration = BodyReading.defaultGrace
    package var service: UbiquityService

    package init(host: String, port: Int, tls: (certificate: String, key: String)?, service: UbiquityService) {
        self.host = host
        self.port = port
        self.tls = tls
        self.service = service
    }

    /// Runs until the process ends; `onRunning` gets the bound port.
    package func run(onRunning: @escaping @Sendable (Int) -> Void) async throws {
        let service = self.service
        let governor = ConnectionGovernor(limit: maxConnections)
        let bodyLimits = BodyLimits(minimumRate: bodyMinimumRate, grace: bodyGrace)
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            try await Self.respond(request, service, governor: governor, bodyLimits: bodyLimits)
        }
        var logger = Logger(label: "ubiquity")
        logger.logLevel = .warning
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [governor.handler()],
            idleTimeout: .seconds(Int64(idleTimeout)),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: maximumHead, maxHeaderListSize: maximumHead, maxHeaderFieldCount: 100))
        let builder: HTTPServerBuilder
        if let tls {
            let chain = try NIOSSLCertificate.fromPEMFile(tls.certificate).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
            let configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            builder = HTTPServerBuilder { responder in
                EventLoopBoundChannel(base: CurrentConnectionChannel(base: try TLSChannel(HTTP1Channel(responder: responder, configuration: http1), tlsConfiguration: configuration)))
            }
        } else {
            builder = HTTPServerBuilder { responder in
                EventLoopBoundChannel(base: CurrentConnectionChannel(base: HTTP1Channel(responder: responder, configuration: http1)))
            }
        }
        let readiness = Watchdog.Readiness()
        let app = Application(
            responder: responder,
            server: builder,
            configuration: .init(address: .hostname(host, port: port), serverName: "ubiquity"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                onRunning(port)
                ServiceManager.notify("READY=1\nMAINPID=\(Environment.processID)\nSTATUS=serving on port \(port)")
                readiness.set()
            },
            logger: logger
        )
        // SIGTERM or SIGINT: the watchers end first (WatcherShutdown, told first as the last
        // service), then the HTTP server stops accepting and lets requests in flight finish;
        // a second signal, or 10 seconds without finishing, cancels what is left.
        // A second SIGTERM or SIGINT while stopping: exit at once (the data folder's lock goes with the process).
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let escalation = Task.detached {
            var seen = 0
            for await signal in signals {
                seen += 1
                if seen >= 2 { Environment.exit(128 + signal.rawValue) }
            }
        }
        defer { escalation.cancel() }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: app), .init(service: WatcherShutdown(hub: service.hub))]
        // Type=notify with WatchdogSec: "WATCHDOG=1" at half the interval while serving.
        if let interval = ServiceManager.watchdogInterval { services.append(.init(service: Watchdog(interval: interval, ready: readiness))) }
        var configuration = ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(10)
        try await ServiceGroup(configuration: configuration).run()
    }

    struct BodyLimits: Sendable {
        var minimumRate: Int
        var grace: Duration
    }

    static func respond(_ request: Request, _ service: UbiquityService, governor: ConnectionGovernor,
                        bodyLimits: BodyLimits) async throws -> Response {
        var query: [String: String] = [:]
        for (k, v) in request.uri.queryParameters { query[String(k)] = String(v) }
        var serviceRequest = ServiceRequest(
            method: request.method.rawValue, path: request.uri.path, query: query,
            authorization: request.headers[.authorization], host: request.head.authority,
            origin: request.headers[.origin], contentType: request.headers[.contentType],
            contentLength: request.headers[.contentLength].flatMap { Int($0) })
        let connection = CurrentConnection.channel
        // The head decides first: a refused request's body is never read, and
        // its connection closes once the refusal is written (a body still on
        // its way is not drained).
        let route: UbiquityService.Route
        switch await service.admit(serviceRequest) {
        case .refused(let answer):
            if let connection, request.head.method != .get || serviceRequest.contentLength != nil || request.headers[.transferEncoding] != nil {
                governor.closeAfterResponse(connection)
            }
            return response(answer)
        case .admitted(let admitted): route = admitted
        }
        if let connection, route.account != nil { governor.trust(connection) }
        if route.readsBody {
            switch await BodyReading.collect(request.body, upTo: UbiquityService.maximumBody,
                                             minimumRate: bodyLimits.minimumRate, grace: bodyLimits.grace) {
            case .success(let buffer):
                serviceRequest.body = Array(buffer.readableBytesView)
            case .failure(let failure):
                if let connection { governor.closeAfterResponse(connection) }
                switch failure {
                case .tooLarge:
                    return response(UbiquityService.error(413, "the request is larger than \(UbiquityService.maximumBody) bytes"))
                case .tooSlow(let received):
                    return response(UbiquityService.error(408, "the body came slower than \(bodyLimits.minimumRate) bytes a second (\(received) bytes received)"))
                case .interrupted:
                    return response(UbiquityService.error(400, "the body ended before its declared length"))
                }
            }
        }
        return response(await service.handle(route, serviceRequest))
    }

    static func response(_ answer: ServiceResponse) -> Response {
        var headers: HTTPFields = [.contentType: answer.contentType, .cacheControl: "no-store",
                                   .init("X-Content-Type-Options")!: "nosniff"]
        for (name, value) in answer.headers {
            switch name {
            case "WWW-Authenticate": headers[.wwwAuthenticate] = value
            case "Retry-After": headers[.retryAfter] = value
            default: break
            }
        }
        if let stream = answer.stream {
            // Written by the connection's task, on its event loop (``EventLoopBoundChannel``).
            return Response(status: .init(code: answer.status), headers: headers, body: ResponseBody { writer in
                await stream.run { event in try await writer.write(event) }
                try await writer.finish(nil)
            })
        }
        return Response(status: .init(code: answer.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
