#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import NIOCore
import Tracing
package import UbiquityProtocol
package import HTTPMessages
import PlatformIO
import SharedTables
package import UbiquityBackend
import PropertyList
import CoreMetrics
import Synchronization

/// The sync protocol (proposal 0011, `OpenAPI/ubiquity.yaml`) over a
/// ``UbiquityBackend``: authentication, checks, commits, long polls.
package final class UbiquityService: Sendable {
    package let backend: any UbiquityBackend
    package let hub = ChangeHub()
    let reads = SharedReads()
    let allowedHosts: Set<String>?
    /// Valid tokens by their SHA-256 (the bytes themselves: no text made per request),
    /// their open event streams and the writing of their last use (``checkTokenGeneration()``).
    let tokens = TokenBook()
    /// When each event stream ends (one task for all of them).
    let deadlines = StreamDeadlines()
    /// What the fleets' publications and reports say, as metrics.
    let fleet = FleetMonitor()

    /// A token's last use is written at most this often.
    static let lastUseInterval: Duration = .seconds(60)

    /// The largest request body (a full store is 1 MB of values, ~1.4 MB as base64).
    package static let maximumBody = 4 << 20
    /// The most changes in one commit.
    package static let maximumChanges = 2 * UbiquityLimits.maximumKeys
    /// The longest long poll, and an event stream's length when the client names none.
    package static let maximumWait = 30.0
    /// The longest event stream a client may ask for (`wait`): a fleet machine asks for 150 s, so
    /// that an idle one wakes less than once a minute (issue 41). A revoked token still ends its
    /// streams at once; a client that vanished without closing holds its stream until then.
    package static let maximumStreamWait = 300.0

    /// Wakes the generation loop when a token change is announced (a notification).
    let tokenChange = WakeSignal()

    /// Where failures are logged (a line each, without its end).
    let log: @Sendable (String) -> Void
    let failureLog = Lock<(last: ContinuousClock.Instant?, skipped: Int)>((nil, 0))

    /// A service over `backend`; `allowedHosts` (lowercased names, without ports) lists the Host names answered (nil: any);
    /// `log` gets a line per failure (standard error by default).
    package init(backend: any UbiquityBackend, allowedHosts: Set<String>?,
                 log: @escaping @Sendable (String) -> Void = { StandardStream.error.write("ubiquity: \($0)\n") }) {
        self.backend = backend
        self.allowedHosts = allowedHosts
        self.log = log
        backend.deliverWakeups { [hub, weak self] wakeup in
            hub.wake(wakeup)
            // A token change, or notifications that may have been lost: the generation is read now.
            if wakeup == .tokens || wakeup == .everything { self?.tokenChange.signal() }
        }
        let interval = backend.tokenCheckInterval
        Task { [weak self, tokenChange] in
            while let service = self {
                await service.checkTokenGeneration()
                // The next read after the interval, or at once when a change is announced.
                await tokenChange.wait(upTo: interval)
            }
        }
    }

    package static func hash(token: String) -> [UInt8] { Array(SHA256.hash(data: Array(token.utf8))) }

    /// A new token: 32 random bytes as hexadecimal.
    package static func newToken() -> String { randomHex(bytes: 32) }

    /// Reads the backend's token generation; when it moved (a token revoked or
    /// rotated, an account deleted, by any process or server), forgets every
    /// cached token and ends the streams whose token is no longer valid.
    func checkTokenGeneration() async {
        guard let now = try? await backend.tokenGeneration() else { return }
        guard tokens.moveGeneration(to: now) else { return }
        for hash in tokens.tokensWithStreams {
            // A database that does not answer ends nothing: checked again at the next move.
            let account: UbiquityAccountInfo?
            do { account = try await backend.account(tokenHash: hash) } catch { continue }
            guard account == nil else { continue }
            for subscription in tokens.takeStreams(of: hash) { subscription.end() }
        }
    }

    // MARK: Responding

    /// What a request is, decided from its head alone.
    package struct Route: Sendable {
        package enum Kind: Sendable { case health, ready, account, commit, changes, events, storesEvents, enroll }
        package var kind: Kind
        /// The store named in the path ("" for health and account).
        package var store: String
        /// The stores of `GET /v1/events` and the revision after which each is followed
        /// (checked in ``UbiquityService/admit(_:)``; empty for any other route).
        package var streamStores: [StreamStart] = []
        /// The authenticated account (nil only for health).
        package var account: UbiquityAccountInfo?
        /// The SHA-256 of the token that authenticated it (empty for health).
        var tokenHash: [UInt8]

        /// Whether the request's body is read (commits only; any other body is discarded unread).
        package var readsBody: Bool { kind == .commit || kind == .enroll }
    }

    /// The decision on a request's head, taken before any of its body is read:
    /// a refusal, or the route with its authenticated account.
    package enum Admission: Sendable {
        case refused(ServerResponse)
        case admitted(Route)
    }

    /// The whole exchange, for callers that have the body already (tests).
    package func respond(to request: ServerRequest) async -> ServerResponse {
        switch await admit(request) {
        case .refused(let answer): return answer
        case .admitted(let route): return await handle(route, request)
        }
    }

    /// Host, Origin, route, token and (for a commit) the declared type and
    /// length: everything that can refuse a request without its body. A
    /// server calls this on the head and reads the body only when admitted,
    /// so a client without a valid token never costs more than its head.
    package func admit(_ request: ServerRequest) async -> Admission {
        if let allowedHosts {
            guard let name = HostNames.name(ofHostHeader: request.host ?? ""), allowedHosts.contains(name) else {
                return .refused(Self.error(421, "the Host \"\(request.host ?? "")\" is not one this server answers for"))
            }
        }
        // Browsers send Origin on cross-site requests; clients of this protocol never do.
        if let origin = request.origin, !origin.isEmpty {
            return .refused(Self.error(403, "requests from web pages (Origin \(origin)) are refused"))
        }
        let parts = PathParts(request.path)
        let target = RouteTarget(parts)
        let kind: Route.Kind
        var store = ""
        switch (request.method, target) {
        case ("GET", .health), ("GET", .healthz): kind = .health
        case ("GET", .readyz): kind = .ready
        case ("GET", .account): kind = .account
        case ("POST", .store(.commit)): (kind, store) = (.commit, String(parts[3]))
        case ("GET", .store(.changes)): (kind, store) = (.changes, String(parts[3]))
        case ("GET", .store(.events)): (kind, store) = (.events, String(parts[3]))
        case ("GET", .events): kind = .storesEvents
        case ("POST", .fleetEnroll): kind = .enroll
        default:
            let known: Bool
            if case .store = target { known = true } else {
                known = ["/v1/health", "/v1/account", "/healthz", "/readyz", "/v1/fleet/enroll", "/v1/events"].contains(request.path)
            }
            return .refused(known ? Self.error(405, "method \(request.method) is not allowed here") : Self.error(404, "no such resource: \(request.path)"))
        }
        // Alive and ready need no token and say nothing private (for load balancers and systemd).
        if kind == .health || kind == .ready { return .admitted(Route(kind: kind, store: store, account: nil, tokenHash: [])) }
        let account: UbiquityAccountInfo, tokenHash: [UInt8]
        switch await authenticate(request) {
        case .failure(let refusal): return .refused(refusal.response)
        case .success(let a): (account, tokenHash) = (a.account, a.hash)
        }
        var streamStores: [StreamStart] = []
        if kind == .storesEvents {
            switch Self.streamStores(request) {
            case .failure(let refusal): return .refused(refusal.response)
            case .success(let starts): streamStores = starts
            }
            // Each store as its own stream would be admitted.
            for start in streamStores {
                if let refusal = Self.fleetRefusal(.events, store: start.store, token: account.token) { return .refused(refusal) }
            }
        } else if let refusal = Self.fleetRefusal(kind, store: store, token: account.token) { return .refused(refusal) }
        if kind == .commit || kind == .enroll {
            // JSON only: a form or text/plain body (what a page can send without asking) is refused.
            guard let type = request.contentType?.lowercased(), type == "application/json" || type.hasPrefix("application/json;") else {
                return .refused(Self.error(415, "the body must be application/json, not \(request.contentType ?? "untyped")"))
            }
            if let length = request.contentLength, length > Self.maximumBody {
                return .refused(Self.error(413, "the request is larger than \(Self.maximumBody) bytes"))
            }
        }
        return .admitted(Route(kind: kind, store: store, streamStores: streamStores, account: account, tokenHash: tokenHash))
    }

    /// `GET /readyz`: 200 when the server takes requests (not stopping, the
    /// database answers, its schema current since it was opened, and, on a
    /// database shared with other servers, their commits heard of as they
    /// are made), else 503 and why.
    func readiness() async -> ServerResponse {
        if hub.stopping.withLock({ $0 }) { return Self.json(503, ["status": "not ready", "reason": "the server is stopping"]) }
        do { _ = try await backend.tokenGeneration() } catch {
            return Self.json(503, ["status": "not ready", "reason": "the database does not answer"])
        }
        guard backend.hearsOtherServers else {
            return Self.json(503, ["status": "not ready", "reason": "not yet listening for other servers' commits"])
        }
        return Self.json(200, ["status": "ready"])
    }

    /// Answers an admitted request (its body read when ``Route/readsBody``).
    package func handle(_ route: Route, _ request: ServerRequest) async -> ServerResponse {
        guard let account = route.account else {
            return route.kind == .ready ? await readiness() : Self.json(200, ["status": "ok"])
        }
        switch route.kind {
        case .health, .ready: return Self.json(200, ["status": "ok"])
        case .account: return Self.json(200, account)
        case .commit: return await commit(request, account: account, store: route.store, tokenHash: route.tokenHash)
        case .changes: return await changes(request, account: account, store: route.store, tokenHash: route.tokenHash)
        case .events: return await events(request, account: account, store: route.store, tokenHash: route.tokenHash)
        case .storesEvents: return await events(request, account: account, stores: route.streamStores, tokenHash: route.tokenHash)
        case .enroll: return await enroll(request, account: account)
        }
    }

    /// The account of the request's bearer token, or the refusal to send.
    func authenticate(_ request: ServerRequest) async -> Result<AuthenticatedToken, Refusal> {
        // The scheme in any ASCII case, compared in place (no lowercased copy of the header).
        guard let header = request.authorization, HeaderFields.hasPrefix(header, ignoringASCIICase: "bearer ") else {
            return .failure(Refusal(response: Self.unauthorized("an Authorization: Bearer <token> header is required")))
        }
        // Spaces around the token trimmed on the UTF-8 view (no Character made per byte).
        var bytes = header.utf8.dropFirst(7)
        while bytes.first == 0x20 { bytes.removeFirst() }
        while bytes.last == 0x20 { bytes.removeLast() }
        let token = String(Substring(bytes))
        guard !token.isEmpty, token.utf8.count <= 256 else { return .failure(Refusal(response: Self.unauthorized("the token is not valid"))) }
        let hash = Self.hash(token: token)
        var account = tokens.account(hash)
        if account == nil {
            // Cached only if no revocation was seen while the database was asked.
            let generation = tokens.generation
            do { account = try await backend.account(tokenHash: hash) } catch {
                return .failure(Refusal(response: unavailable(error)))
            }
            if let account { tokens.remember(account, for: hash, checkedAt: generation) }
        }
        guard let account else { return .failure(Refusal(response: Self.unauthorized("the token is not valid"))) }
        recordUse(hash)
        return .success(AuthenticatedToken(account: account, hash: hash))
    }

    /// Writes the token's last use, unless it was written within ``lastUseInterval`` (in the background).
    func recordUse(_ hash: [UInt8]) {
        guard tokens.useIsDue(hash, interval: Self.lastUseInterval) else { return }
        let backend = self.backend
        Task { try? await backend.recordUse(tokenHash: hash) }
    }

    /// An account and the hash of the token that proved it.
    struct AuthenticatedToken {
        var account: UbiquityAccountInfo
        var hash: [UInt8]
    }
}
