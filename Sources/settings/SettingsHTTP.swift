import ArgumentParser
import Hummingbird
import HTTPGuards
import HummingbirdCore
import NIOCore
import PlatformIO
import SettingsBundle
import SettingsWeb
import HTTPMessages

/// The Settings server's HTTP handling: Hummingbird's request through the
/// one adapter (``HummingbirdAdapter``), the form body read within its own
/// deadline, the answer with the Settings pages' security headers.
enum SettingsHTTP {
    /// The largest form accepted (a pane's fields are a few kilobytes).
    static let maximumBody = 1 << 20

    /// The fields every answer carries: no caching, no sniffing, no framing,
    /// nothing loaded from elsewhere.
    static let securityHeaders: HTTPFields = [
        .cacheControl: "no-store",
        .init("X-Content-Type-Options")!: "nosniff",
        .init("X-Frame-Options")!: "DENY",
        .init("Referrer-Policy")!: "same-origin",
        .init("Cross-Origin-Resource-Policy")!: "same-origin",
        .init("Content-Security-Policy")!: "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ]

    static func respond(to request: Request, with app: SettingsApp, bodyTimeout: Duration, governor: ConnectionGovernor) async throws -> Response {
        var serverRequest = HummingbirdAdapter.request(request)
        if request.method == .post {
            // A form has a deadline of its own: the idle timeout restarts with every byte.
            let result = await BodyReading.collect(request.body, upTo: maximumBody, grace: bodyTimeout)
            if case .failure = result, let connection = CurrentConnection.channel {
                // The rest of the body is never read: the connection closes after the answer
                // (`Connection: close`), lingering so that the client reads it.
                governor.closeAfterResponse(connection)
            }
            switch result {
            case .success(let buffer): serverRequest.body = Array(buffer.readableBytesView)
            case .failure(.tooLarge):
                return Response(status: .contentTooLarge,
                                body: .init(byteBuffer: ByteBuffer(string: "The form is larger than 1 MiB.\n")))
            case .failure:
                return Response(status: .requestTimeout,
                                body: .init(byteBuffer: ByteBuffer(string: "The form was not sent in time.\n")))
            }
        }
        return HummingbirdAdapter.response(app.respond(to: serverRequest), headers: securityHeaders)
    }
}
