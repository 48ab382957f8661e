/// A request to the Settings app, independent of the HTTP server that
/// received it.
///
/// ```swift
/// let request = SettingsRequest(method: .get, path: "/apps/com.example.AppSettings",
///                               query: FormData(urlEncoded: "pane=More.plist"), acceptLanguage: "de")
/// ```
public struct SettingsRequest: Sendable {
    /// The methods the app answers.
    public enum Method: String, Sendable { case get = "GET", post = "POST" }

    /// GET or POST.
    public var method: Method
    /// The path, without the query.
    public var path: String
    /// The query string's fields.
    public var query: FormData
    /// The posted form's fields (empty for GET).
    public var form: FormData
    /// The `Accept-Language` header, for localization.
    public var acceptLanguage: String

    /// Creates a request.
    public init(method: Method, path: String, query: FormData = FormData(fields: []), form: FormData = FormData(fields: []), acceptLanguage: String = "") {
        self.method = method
        self.path = path
        self.query = query
        self.form = form
        self.acceptLanguage = acceptLanguage
    }
}

/// The Settings app's answer: a status, a content type, a body and, for
/// redirects, a location.
public struct SettingsResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// The `Content-Type` header.
    public var contentType: String
    /// The body.
    public var body: [UInt8]
    /// The `Location` header of a redirect.
    public var location: String?

    /// An HTML page.
    static func html(_ status: Int, _ page: String) -> SettingsResponse {
        SettingsResponse(status: status, contentType: "text/html; charset=utf-8", body: Array(page.utf8), location: nil)
    }

    /// A redirect after a POST (303 See Other).
    static func seeOther(_ location: String) -> SettingsResponse {
        SettingsResponse(status: 303, contentType: "text/plain; charset=utf-8", body: Array("See \(location)\n".utf8), location: location)
    }

    /// The body as text (for tests and logs).
    public var text: String { String(decoding: body, as: UTF8.self) }
}
