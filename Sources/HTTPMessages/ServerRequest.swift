/// A request as both HTTP servers' applications see it — the Settings app
/// (`SettingsApp`) and the sync service (`UbiquityService`) — with no
/// server framework's types, so that each application is tested in-process
/// by building requests by hand. `HummingbirdAdapter` (in `HTTPGuards`) makes
/// one from a Hummingbird request.
///
/// ```swift
/// let request = ServerRequest(method: "GET", path: "/v1/health", headers: ["Host": "localhost"])
/// request.host  // "localhost"
/// ```
package struct ServerRequest: Sendable {
    /// The methods the applications here answer, for building requests.
    package enum Method: String, Sendable {
        case get = "GET", head = "HEAD", post = "POST", put = "PUT", delete = "DELETE"
    }

    /// The method as sent, in upper case (`GET`, `POST`, …).
    package var method: String
    /// The path, without the query.
    package var path: String
    /// The query string as sent, without the `?` (still percent-encoded).
    package var query: String
    /// The header fields.
    package var headers: HeaderFields
    /// The body, once the server has read it (empty before, and for a request without one).
    package var body: [UInt8]

    package init(method: String, path: String, query: String = "", headers: HeaderFields = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// GET or HEAD: a request that reads.
    package var isRead: Bool { method == "GET" || method == "HEAD" }

    /// The query's fields, decoded.
    package var queryFields: FormData { FormData(urlEncoded: query) }

    /// The `Host` header (the authority).
    package var host: String? { headers["Host"] }
    /// The `Origin` header, when the client sent one.
    package var origin: String? { headers["Origin"] }
    /// The `Content-Type` header.
    package var contentType: String? { headers["Content-Type"] }
    /// The `Authorization` header.
    package var authorization: String? { headers["Authorization"] }
    /// The declared length of the body (`Content-Length`), when given and a number.
    package var contentLength: Int? { headers["Content-Length"].flatMap { Int($0) } }

    /// The value of the cookie `name` in the `Cookie` header, if sent.
    package func cookie(_ name: String) -> String? {
        guard let cookies = headers["Cookie"] else { return nil }
        for part in cookies.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pair.count == 2, Self.trimmed(pair[0]) == name { return String(Self.trimmed(pair[1])) }
        }
        return nil
    }

    private static func trimmed(_ s: Substring) -> Substring {
        var s = s
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
