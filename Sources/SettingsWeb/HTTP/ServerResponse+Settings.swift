import HTTPMessages

/// The Settings app's kinds of answer.
extension ServerResponse {
    /// An HTML page.
    static func html(_ status: Int, _ page: String) -> ServerResponse {
        ServerResponse(status: status, contentType: "text/html; charset=utf-8", body: Array(page.utf8))
    }

    /// A refusal: `status` and a page that says why.
    static func refused(_ status: Int, _ title: String, _ message: String) -> ServerResponse {
        .html(status, MessagePage(title: title, message: message).render())
    }

    /// A redirect after a POST (303 See Other).
    static func seeOther(_ location: String) -> ServerResponse {
        ServerResponse(status: 303, contentType: "text/plain; charset=utf-8", headers: ["Location": location],
                       body: Array("See \(location)\n".utf8))
    }
}
