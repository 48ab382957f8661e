import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import OpenDefaultsUbiquity

/// The sync server on Hummingbird: HTTP/1.1 (TLS when given a certificate),
/// idle connections closed, bodies bounded, requests handed to a
/// ``UbiquityService``.
package struct UbiquityHTTPServer: Sendable {
    package var host: String
    package var port: Int
    package var tls: (certificate: String, key: String)?
    /// Seconds a connection may stay idle; longer than the longest long poll.
    package var idleTimeout: Int = 60
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
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            try await Self.respond(request, service)
        }
        var logger = Logger(label: "ubiquity")
        logger.logLevel = .warning
        let http1 = HTTP1Channel.Configuration(idleTimeout: .seconds(Int64(idleTimeout)))
        let builder: HTTPServerBuilder
        if let tls {
            let chain = try NIOSSLCertificate.fromPEMFile(tls.certificate).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
            let configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            builder = HTTPServerBuilder { responder in
                EventLoopBoundChannel(base: try TLSChannel(HTTP1Channel(responder: responder, configuration: http1), tlsConfiguration: configuration))
            }
        } else {
            builder = HTTPServerBuilder { responder in
                EventLoopBoundChannel(base: HTTP1Channel(responder: responder, configuration: http1))
            }
        }
        let app = Application(
            responder: responder,
            server: builder,
            configuration: .init(address: .hostname(host, port: port), serverName: "ubiquity"),
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    static func respond(_ request: Request, _ service: UbiquityService) async throws -> Response {
        var request = request
        var body: [UInt8] = []
        if request.method == .post {
            do {
                let buffer = try await request.collectBody(upTo: UbiquityService.maximumBody)
                body = Array(buffer.readableBytesView)
            } catch {
                return Response(status: .contentTooLarge, headers: [.contentType: "application/json"],
                                body: .init(byteBuffer: ByteBuffer(string: #"{"error":"the request is larger than \#(UbiquityService.maximumBody) bytes"}"#)))
            }
        }
        var query: [String: String] = [:]
        for (k, v) in request.uri.queryParameters { query[String(k)] = String(v) }
        let answer = await service.respond(to: ServiceRequest(
            method: request.method.rawValue, path: request.uri.path, query: query,
            authorization: request.headers[.authorization], host: request.head.authority,
            origin: request.headers[.origin], contentType: request.headers[.contentType], body: body))
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
