/// An application's answer to a ``ServerRequest``: a status, a content type,
/// further header fields and a body, or a ``ResponseStream``.
///
/// ```swift
/// let answer = ServerResponse(status: 200, contentType: "application/json", body: Array("{}".utf8))
/// ```
package struct ServerResponse: Sendable {
    /// The HTTP status code.
    package var status: Int
    /// The `Content-Type` header.
    package var contentType: String
    /// Further header fields (`Location`, `Set-Cookie`, `Allow`, `Retry-After`, …).
    package var headers: HeaderFields
    /// The body (empty when ``stream`` is set).
    package var body: [UInt8]
    /// A body written over time, for `text/event-stream`.
    package var stream: ResponseStream?

    package init(status: Int, contentType: String, headers: HeaderFields = [:], body: [UInt8] = [], stream: ResponseStream? = nil) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
        self.stream = stream
    }

    /// The `Location` header of a redirect.
    package var location: String? { headers["Location"] }
    /// The `Set-Cookie` header.
    package var setCookie: String? { headers["Set-Cookie"] }

    /// The body as text (for tests and logs).
    package var text: String { String(decoding: body, as: UTF8.self) }
}
