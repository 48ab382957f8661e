package import HTTPMessages
package import HummingbirdCore
package import HTTPTypes
package import NIOCore
import PlatformIO
import SharedTables


/// Between Hummingbird and the framework-free ``ServerRequest`` and
/// ``ServerResponse`` both servers' applications speak (the Settings app and
/// the sync service): one translation, tested once.
///
/// ```swift
/// router.get("/v1/health") { request, _ in
///     HummingbirdAdapter.response(service.respond(to: HummingbirdAdapter.request(request)), headers: [:])
/// }
/// ```
package enum HummingbirdAdapter {
    /// The request's head: method, path, query and every header field (the
    /// authority as `Host`). The body is not read here: each server reads it
    /// within its own limits (``BodyReading``) once the head is admitted.
    package static func request(_ request: Request) -> ServerRequest {
        var headers = HeaderFields()
        headers.fields.reserveCapacity(request.headers.count + 1)
        if let authority = request.head.authority { headers.append("Host", authority) }
        for field in request.headers { headers.append(field.name.rawName, field.value) }
        return ServerRequest(method: request.method.rawValue, path: request.uri.path,
                             query: request.uri.query ?? "", headers: headers)
    }

    /// The answer as a Hummingbird response: `base` (a server's own fields:
    /// security headers, cache control) with the answer's content type and
    /// fields over it; a stream is written chunk by chunk, each chunk's
    /// buffer made once and shared by every connection sending it.
    package static func response(_ answer: ServerResponse, headers base: HTTPFields) -> Response {
        var headers = base
        headers[.contentType] = answer.contentType
        // The answer's first field of a name replaces the server's own; a repeated one is added.
        var given: Set<HTTPField.Name> = []
        for (name, value) in answer.headers.fields {
            guard let name = HTTPField.Name(name) else { continue }
            if given.insert(name).inserted { headers[name] = value } else { headers.append(HTTPField(name: name, value: value)) }
        }
        let status = HTTPResponse.Status(code: answer.status)
        if let stream = answer.stream {
            return Response(status: status, headers: headers, body: ResponseBody { writer in
                await stream.run { chunk in try await writer.write(buffer(of: chunk)) }
                try await writer.finish(nil)
            })
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// The chunk as a NIO buffer, converted on first use and kept in the chunk.
    package static func buffer(of chunk: ResponseChunk) -> ByteBuffer {
        chunk.converted.value(as: SharedBuffer.self) { SharedBuffer(ByteBuffer(bytes: chunk.bytes)) }.buffer
    }

    final class SharedBuffer: Sendable {
        let buffer: ByteBuffer
        init(_ buffer: ByteBuffer) { self.buffer = buffer }
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`, made once: a server that reads and answers it for every request built and
    /// checked the name twice a request.
    package static let requestID = HTTPField.Name("X-Request-Id")!
}
