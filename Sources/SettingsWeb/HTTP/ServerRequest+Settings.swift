package import HTTPMessages

/// What the Settings app reads of a request, and how a test builds one.
extension ServerRequest {
    /// A request to the Settings app, as a browser would send it.
    ///
    /// ```swift
    /// let request = ServerRequest.settings(.get, path: "/apps/com.example.AppSettings",
    ///                                      query: FormData(urlEncoded: "pane=More.plist"), acceptLanguage: "de")
    /// ```
    package static func settings(_ method: Method, path: String, query: FormData = FormData(fields: []),
                                 form: FormData = FormData(fields: []), acceptLanguage: String = "",
                                 host: String? = nil, origin: String? = nil, fetchSite: String? = nil,
                                 cookies: String? = nil) -> ServerRequest {
        var headers = HeaderFields()
        if let host { headers.append("Host", host) }
        if let origin { headers.append("Origin", origin) }
        if let fetchSite { headers.append("Sec-Fetch-Site", fetchSite) }
        if let cookies { headers.append("Cookie", cookies) }
        if !acceptLanguage.isEmpty { headers.append("Accept-Language", acceptLanguage) }
        var body: [UInt8] = []
        if method == .post {
            headers.append("Content-Type", "application/x-www-form-urlencoded")
            body = Array(FormData.encode(form).utf8)
        }
        return ServerRequest(method: method.rawValue, path: path, query: FormData.encode(query), headers: headers, body: body)
    }

    /// The posted form's fields (none unless the request is a POST).
    var form: FormData { method == "POST" ? FormData(urlEncoded: String(decoding: body, as: UTF8.self)) : FormData(fields: []) }
    /// The `Accept-Language` header, for localization.
    var acceptLanguage: String { headers["Accept-Language"] ?? "" }
    /// The `Sec-Fetch-Site` header, when the client sent one.
    var fetchSite: String? { headers["Sec-Fetch-Site"] }
}
