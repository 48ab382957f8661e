import PlatformIO
import HTTPMessages
/// Who may use the Settings app and how each request proves it, checked
/// before anything else is done for the request.
///
/// - **Host names** (against DNS rebinding): a request whose `Host` is not
///   one of ``allowedHosts`` (with any port) is answered 421 and nothing else.
/// - **Access token** (beyond loopback): with ``accessToken`` set, a request
///   must carry it in the `settings_access` cookie; opening any page with
///   `?token=<token>` sets that cookie (`HttpOnly`, `SameSite=Strict`) and
///   redirects to the page without it. Anything else is answered 401.
/// - **Proof of origin** (against cross-site request forgery): every POST
///   carries ``formToken`` in a hidden `token` field of the app's own forms;
///   its `Origin`, when sent, names this server exactly (`null` and other
///   origins are refused), and its `Sec-Fetch-Site`, when sent, is
///   `same-origin`. A refused POST writes nothing and is answered 403 with a
///   page that says why.
/// - **HTTPS** (``secure``): a server that speaks TLS itself marks its cookie
///   `Secure` and takes a POST's `Origin` only with the `https` scheme. A
///   plain server takes either scheme, so that a TLS proxy may stand in front.
///
/// ```swift
/// let policy = AccessPolicy.loopback(additionalHosts: ["settings.internal"])
/// let app = SettingsApp(catalog: SettingsCatalog(), policy: policy)
/// ```
package struct AccessPolicy: Sendable {
    /// Host names answered (lowercased, without a port; IPv6 in brackets).
    package var allowedHosts: Set<String>
    /// The token that grants access when the server listens beyond loopback.
    package var accessToken: String?
    /// The per-server secret every form carries.
    package let formToken: String
    /// Whether the server speaks HTTPS itself (`settings serve --tls-cert`).
    package var secure: Bool

    /// The cookie that carries the access token.
    package static let accessCookie = "settings_access"

    /// Creates a policy. Host names are compared without case and port.
    package init(allowedHosts: some Sequence<String>, accessToken: String? = nil, formToken: String = AccessPolicy.randomToken(), secure: Bool = false) {
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.accessToken = accessToken
        self.formToken = formToken
        self.secure = secure
    }

    /// A policy for a server on loopback: the loopback names, and `additionalHosts`.
    package static func loopback(additionalHosts: [String] = []) -> AccessPolicy {
        AccessPolicy(allowedHosts: HostNames.loopbackNames + additionalHosts)
    }

    /// 32 random bytes as 64 hexadecimal digits (the system's secure generator).
    package static func randomToken() -> String { randomHex(bytes: 32) }

    /// The host name of a `Host` header (lowercased, port removed), or nil
    /// when it is malformed.
    static func hostName(_ header: String) -> String? { HostNames.name(ofHostHeader: header) }

    /// Compares two secrets in time that does not depend on where they differ.
    static func sameSecret(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }

    /// Why `request` (whose decoded `query` and `form` the caller passes) is
    /// refused, as the response to send; nil when it may proceed.
    func refusal(for request: ServerRequest, query: FormData, form: FormData) -> ServerResponse? {
        guard let header = request.host, let host = Self.hostName(header) else {
            return .refused(400, "Bad request", "The request has no valid Host header.")
        }
        guard allowedHosts.contains(host) else {
            return .refused(421, "Misdirected request",
                "This Settings app answers only for \(allowedHosts.sorted().joined(separator: ", ")); the request was for “\(host)”. "
                + "Start it with --allow-host \(host) if that name is meant to reach it.")
        }
        if let accessToken {
            if request.isRead, let offered = query["token"] {
                guard Self.sameSecret(offered, accessToken) else {
                    return .refused(401, "Wrong access token", "The token in this address is not this server's. Open the address `settings serve` printed.")
                }
                var redirect = ServerResponse.seeOther(request.path.isEmpty ? "/" : request.path)
                redirect.headers.append("Set-Cookie", "\(Self.accessCookie)=\(accessToken); Path=/; HttpOnly; SameSite=Strict\(secure ? "; Secure" : "")")
                return redirect
            }
            guard let cookie = request.cookie(Self.accessCookie), Self.sameSecret(cookie, accessToken) else {
                return .refused(401, "Access token needed",
                    "This Settings app is reachable from other machines, so it needs its access token: open the address `settings serve` printed (it ends in ?token=…).")
            }
        }
        guard request.method == "POST" else { return nil }
        if let site = request.fetchSite?.lowercased(), site != "same-origin" {
            return .refused(403, "Request refused",
                "The form was sent from another site (Sec-Fetch-Site: \(site)); only this app's own pages may change settings. Nothing was changed.")
        }
        if let origin = request.origin {
            let expected = (secure ? ["https://"] : ["http://", "https://"]).map { $0 + header.lowercased() }
            guard expected.contains(origin.lowercased()) else {
                return .refused(403, "Request refused",
                    "The form was sent from \(origin == "null" ? "an opaque origin (Origin: null)" : "another origin (\(origin))"); only this app's own pages may change settings. Nothing was changed.")
            }
        }
        guard let token = form["token"], Self.sameSecret(token, formToken) else {
            return .refused(403, "Request refused",
                "The form did not come from this Settings app (its token is missing or wrong; reload the page and try again). Nothing was changed.")
        }
        return nil
    }
}

