package import HTTPGuards
import HTTPMessages
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import PlatformIO
import SharedTables
import UbiquityBackend
package import ServiceLifecycle
import UbiquityProtocol
import UnixSignals
import Synchronization

/// The sync server on Hummingbird: HTTP/1.1 (TLS when given a certificate),
/// idle connections closed, connections capped (``ConnectionGovernor``: idle
/// unauthenticated ones shed first), every request admitted on its head
/// before any body is read, bodies bounded in size and in time
/// (``BodyReading``), requests handed to a ``UbiquityService``.
package struct UbiquityHTTPServer: Sendable {
    package var host: String
    package var port: Int
    package var tls: ServerTLS?
    /// Seconds a connection may stay idle; longer than the longest long poll.
    package var idleTimeout: Int = 60
    /// The most connections open at once (the caller keeps it below the file limit).
    package var maxConnections: Int = 10_240
    /// The longest request head (an Authorization header and a path need far less).
    package var maximumHead: Int = 16 << 10
    /// A body's minimum rate after its grace period (``BodyReading``).
    package var bodyMinimumRate: Int = BodyReading.defaultMinimumRate
    package var bodyGrace: Duration = BodyReading.defaultGrace
    /// How long SIGTERM waits for requests in flight before cancelling them (streams end at once).
    package var stopTimeout: Duration = .seconds(10)
    package var service: UbiquityService
    /// More services run beside the server and stopped with it (the metrics listener).
    package var companions: [any Service] = []

    package init(host: String, port: Int, tls: ServerTLS?, service: UbiquityService) {
        self.host = host
        self.port = port
        self.tls = tls
        self.service = service
    }

    /// Runs until the process ends; `onRunning` gets the bound port.
    package func run(onRunning: @escaping @Sendable (Int) -> Void) async throws {
        // A tracer is bootstrapped, if at all, before the server starts: asked once, here.
        ServerTracing.refresh()
        let service = self.service
        let governor = ConnectionGovernor(limit: maxConnections)
        let bodyLimits = BodyLimits(minimumRate: bodyMinimumRate, grace: bodyGrace)
        let requestLog = Logger(label: "ubiquity.request")
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            try await Self.observed(request, log: requestLog) { current in
                try await Self.respond(request, service, governor: governor, bodyLimits: bodyLimits, current: current)
            }
        }
        var logger = Logger(label: "ubiquity")
        logger.logLevel = .warning
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [governor.handler()],
            idleTimeout: .seconds(Int64(idleTimeout)),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: maximumHead, maxHeaderListSize: maximumHead, maxHeaderFieldCount: 100))
        let connections = ConnectionTasks()
        let builder: HTTPServerBuilder
        if let tls {
            let configuration = tls.configuration
            builder = HTTPServerBuilder { responder in
                EventLoopBoundChannel(base: CurrentConnectionChannel(base: try TLSChannel(HTTP1Channel(responder: responder, configuration: http1), tlsConfiguration: configuration)), connections: connections)
            }
        } else {
            builder = HTTPServerBuilder { responder in
                EventLoopBoundChannel(base: CurrentConnectionChannel(base: HTTP1Channel(responder: responder, configuration: http1)), connections: connections)
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
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = companions.map { .init(service: $0) }
        services += [.init(service: app), .init(service: WatcherShutdown(hub: service.hub))]
        // Type=notify with WatchdogSec: "WATCHDOG=1" at half the interval while serving.
        if let interval = ServiceManager.watchdogInterval { services.append(.init(service: Watchdog(interval: interval, ready: readiness))) }
        var configuration = ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = stopTimeout
        // The HTTP server returns once it stops accepting; its connections are ours to wait
        // for (requests in flight finish, streams end), at most 10 seconds before they are
        // cancelled, and only then does the caller close the database.
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch {
            connections.cancelAll()
            await connections.waitUntilEmpty()
            throw error
        }
        await connections.drain(within: stopTimeout)
    }

    /// Runs one exchange with its request id (the client's `X-Request-Id` when it is a plain
    /// word of at most 64 characters, else a new one, sent back), a span, the request metrics,
    /// and one log line: at `debug`, or `error` for a 5xx answer. Never a token.
    ///
    /// The request's log line learns its account through `current`, handed down, not a task-local
    /// value: a task-local push is one more frame in the connection's task, whose slabs stay for
    /// as long as the connection is open (an idle fleet machine's event stream among them).
    @inline(never)
    static func observed(_ request: Request, log: Logger, _ body: (CurrentRequest) async throws -> Response) async throws -> Response {
        // What the log line and the metrics need is taken out before the exchange runs, into a
        // small object: this function's frame then holds a reference across the wait, not the
        // request's copies and the log line's temporaries (1,712 bytes of frame, in a slab of the
        // connection's task that stays for as long as the connection is open).
        let exchange = Exchange(request, log: log)
        var response: Response
        if ServerTracing.isOn {
            response = try await exchange.traced(body)
        } else {
            response = try await body(exchange.current)
        }
        exchange.finish(&response)
        return response
    }

    /// The route's name for metrics and logs: one of a fixed set, never a
    /// part of the path a client chose (store names, or any path at all from
    /// an unauthenticated client, would make a label each: unbounded series).
    static func routeLabel(_ method: String, _ path: String) -> String {
        let parts = PathParts(path)
        switch RouteTarget(parts) {
        case .healthz: return "healthz"
        case .readyz: return "readyz"
        case .health: return "health"
        case .account: return "account"
        case .events: return "events"
        case .fleetEnroll: return "fleet/enroll"
        case .store(let action) where !parts.isEmpty(3):
            switch action {
            case .commit: return "stores/commit"
            case .changes: return "stores/changes"
            case .events: return "stores/events"
            }
        case .store, .unknown: return "other"
        }
    }

    /// A new request id: 16 hex digits, unique in the process (SplitMix64's finaliser, a
    /// bijection, of a random seed plus a counter) and different in every process. A request id
    /// is for finding a request's log line, not a secret; each used to cost a `getrandom` call.
    static func newRequestID() -> String {
        var z = requestIDSeed &+ requestIDCounter.add(1, ordering: .relaxed).newValue &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return String(unsafeUninitializedCapacity: 16) { out in
            for i in 0..<16 {
                let digit = UInt8(truncatingIfNeeded: z >> (60 - 4 * UInt64(i))) & 0xF
                out[i] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            }
            return 16
        }
    }
    static let requestIDSeed: UInt64 = {
        var g = SystemRandomNumberGenerator()
        return g.next()
    }()
    static let requestIDCounter = Atomic<UInt64>(0)

    struct BodyLimits: Sendable {
        var minimumRate: Int
        var grace: Duration
    }

    /// Admits the request by its head, reads its body when its route takes one, and lets the
    /// service handle it.
    ///
    /// What is not a wait is done in functions of its own (`@inline(never)`): their temporaries
    /// live on the thread's stack, not in this function's frame, which the connection's task
    /// keeps in its slabs for as long as the connection is open (1,632 bytes when all of it was
    /// here).
    static func respond(_ request: Request, _ service: UbiquityService, governor: ConnectionGovernor,
                        bodyLimits: BodyLimits, current: CurrentRequest) async throws -> Response {
        var serviceRequest = serviceRequest(request)
        // The head decides first: a refused request's body is never read, and
        // its connection closes once the refusal is written (a body still on
        // its way is not drained).
        let route: UbiquityService.Route
        switch await service.admit(serviceRequest) {
        case .refused(let answer): return refused(answer, request, serviceRequest, governor: governor)
        case .admitted(let admitted): route = admitted
        }
        admitted(route, governor: governor, current: current)
        if route.readsBody, let failure = await readBody(request, into: &serviceRequest, limits: bodyLimits) {
            return unreadable(failure, governor: governor, limits: bodyLimits)
        }
        return response(await service.handle(route, serviceRequest))
    }

    @inline(never)
    static func serviceRequest(_ request: Request) -> ServerRequest { HummingbirdAdapter.request(request) }

    /// A refusal by the head; the connection closes after it unless nothing more can be on its way.
    @inline(never)
    static func refused(_ answer: ServerResponse, _ request: Request, _ serviceRequest: ServerRequest, governor: ConnectionGovernor) -> Response {
        if let connection = CurrentConnection.channel,
           request.head.method != .get || serviceRequest.contentLength != nil || request.headers[.transferEncoding] != nil {
            governor.closeAfterResponse(connection)
        }
        return response(answer)
    }

    /// An admitted request: its connection is trusted once an account is known.
    @inline(never)
    static func admitted(_ route: UbiquityService.Route, governor: ConnectionGovernor, current: CurrentRequest) {
        if let connection = CurrentConnection.channel, route.account != nil { governor.trust(connection) }
        current.account.withLock { $0 = route.account?.id }
    }

    /// Reads the body into `serviceRequest`; nil when it was read whole.
    static func readBody(_ request: Request, into serviceRequest: inout ServerRequest, limits: BodyLimits) async -> BodyReading.Failure? {
        switch await BodyReading.collect(request.body, upTo: UbiquityService.maximumBody, minimumRate: limits.minimumRate, grace: limits.grace) {
        case .success(let buffer):
            serviceRequest.body = Array(buffer.readableBytesView)
            return nil
        case .failure(let failure):
            return failure
        }
    }

    /// The answer to a body that could not be read whole; the connection closes after it.
    @inline(never)
    static func unreadable(_ failure: BodyReading.Failure, governor: ConnectionGovernor, limits: BodyLimits) -> Response {
        if let connection = CurrentConnection.channel { governor.closeAfterResponse(connection) }
        switch failure {
        case .tooLarge:
            return response(UbiquityService.error(413, "the request is larger than \(UbiquityService.maximumBody) bytes"))
        case .tooSlow(let received):
            return response(UbiquityService.error(408, "the body came slower than \(limits.minimumRate) bytes a second (\(received) bytes received)"))
        case .interrupted:
            return response(UbiquityService.error(400, "the body ended before its declared length"))
        }
    }

    /// The fields every answer of the sync server carries.
    static let baseHeaders: HTTPFields = [.cacheControl: "no-store", .init("X-Content-Type-Options")!: "nosniff"]

    @inline(never)
    static func response(_ answer: ServerResponse) -> Response {
        HummingbirdAdapter.response(answer, headers: baseHeaders)
    }
}
