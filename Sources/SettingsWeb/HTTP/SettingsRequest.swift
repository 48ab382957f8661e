/// A request to the Settings app, independent of the HTTP server that
/// received it.
///
/// ```swift
/// let request = SettingsRequest(method: .get, path: "/apps/com.example.AppSettings",
///                               query: FormData(urlEncoded: "pane=More.plist"), acceptLanguage: "de")
/// ```
package struct SettingsRequest: Sendable {
    /// The methods the app answers.
    package enum Method: String, Sendable { case get = "GET", post = "POST" }

    /// GET or POST.
    package var method: Method
    /// The path, without the query.
    package var path: String
    /// The query string's fields.
    package var query: FormData
    /// The posted form's fields (empty for GET).
    package var form: FormData
    /// The `Accept-Language` header, for localization.
    package var acceptLanguage: String
    /// The `Host` header (checked against ``AccessPolicy/allowedHosts``).
    package var host: String?
    /// The `Origin` header, when the client sent one.
    package var origin: String?
    /// The `Sec-Fetch-Site` header, when the client sent one.
    package var fetchSite: String?
    /// The `Cookie` header.
    package var cookies: String?

    /// Creates a request.
    package init(method: Method, path: String, query: FormData = FormData(fields: []), form: FormData = FormData(fields: []),
                acceptLanguage: String = "", host: String? = nil, origin: String? = nil, fetchSite: String? = nil, cookies: String? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.form = form
        self.acceptLanguage = acceptLanguage
        self.host = host
        self.origin = origin
        self.fetchSite = fetchSite
        self.cookies = cookies
    }

    /// The value of the cookie `name`, if sent.
    package func cookie(_ name: String) -> String? {
        guard let cookies else { return nil }
        for part in cookies.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pair.count == 2, pair[0].trimmingCharacters(in: " ") == name { return String(pair[1].trimmingCharacters(in: " ")) }
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> Substring {
        var s = self
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return s
    }
}

/// The Settings app's answer: a status, a content type, a body and, for
/// redirects, a location.
package struct SettingsResponse: Sendable {
    /// The HTTP status code.
    package var status: Int
    /// The `Content-Type` header.
    package var contentType: String
    /// The body.
    package var body: [UInt8]
    /// The `Location` header of a redirect.
    package var location: String?
    /// The `Set-Cookie` header (the access token's cookie).
    package var setCookie: String?

    /// An HTML page.
    static func html(_ status: Int, _ page: String) -> SettingsResponse {
        SettingsResponse(status: status, contentType: "text/html; charset=utf-8", body: Array(page.utf8), location: nil)
    }

    /// A refusal: `status` and a page that says why.
    static func refused(_ status: Int, _ title: String, _ message: String) -> SettingsResponse {
        .html(status, MessagePage(title: title, message: message).render())
    }

    /// A redirect after a POST (303 See Other).
    static func seeOther(_ location: String) -> SettingsResponse {
        SettingsResponse(status: 303, contentType: "text/plain; charset=utf-8", body: Array("See \(location)\n".utf8), location: location)
    }

    /// The body as text (for tests and logs).
    package var text: String { String(decoding: body, as: UTF8.self) }
}
