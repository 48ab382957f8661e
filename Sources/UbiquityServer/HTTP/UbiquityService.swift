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

    /// A token's last use is written at most this often.
    static let lastUseInterval: Duration = .seconds(60)

    /// The largest request body (a full store is 1 MB of values, ~1.4 MB as base64).
    package static let maximumBody = 4 << 20
    /// The most changes in one commit.
    package static let maximumChanges = 2 * UbiquityLimits.maximumKeys
    /// The longest long poll.
    package static let maximumWait = 30.0

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
        package enum Kind: Sendable { case health, ready, account, commit, changes, events }
        package var kind: Kind
        /// The store named in the path ("" for health and account).
        package var store: String
        /// The authenticated account (nil only for health).
        package var account: UbiquityAccountInfo?
        /// The SHA-256 of the token that authenticated it (empty for health).
        var tokenHash: [UInt8]

        /// Whether the request's body is read (commits only; any other body is discarded unread).
        package var readsBody: Bool { kind == .commit }
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
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let kind: Route.Kind
        var store = ""
        switch (request.method, parts.count) {
        case ("GET", 3) where parts[1] == "v1" && parts[2] == "health": kind = .health
        case ("GET", 2) where parts[1] == "healthz": kind = .health
        case ("GET", 2) where parts[1] == "readyz": kind = .ready
        case ("GET", 3) where parts[1] == "v1" && parts[2] == "account": kind = .account
        case ("POST", 5) where parts[1] == "v1" && parts[2] == "stores" && parts[4] == "commit": (kind, store) = (.commit, parts[3])
        case ("GET", 5) where parts[1] == "v1" && parts[2] == "stores" && parts[4] == "changes": (kind, store) = (.changes, parts[3])
        case ("GET", 5) where parts[1] == "v1" && parts[2] == "stores" && parts[4] == "events": (kind, store) = (.events, parts[3])
        default:
            let known = ["/v1/health", "/v1/account", "/healthz", "/readyz"].contains(request.path)
                || (parts.count == 5 && parts[1] == "v1" && parts[2] == "stores" && ["commit", "changes", "events"].contains(parts[4]))
            return .refused(known ? Self.error(405, "method \(request.method) is not allowed here") : Self.error(404, "no such resource: \(request.path)"))
        }
        // Alive and ready need no token and say nothing private (for load balancers and systemd).
        if kind == .health || kind == .ready { return .admitted(Route(kind: kind, store: store, account: nil, tokenHash: [])) }
        let account: UbiquityAccountInfo, tokenHash: [UInt8]
        switch await authenticate(request) {
        case .failure(let refusal): return .refused(refusal.response)
        case .success(let a): (account, tokenHash) = (a.account, a.hash)
        }
        if kind == .commit {
            // JSON only: a form or text/plain body (what a page can send without asking) is refused.
            guard let type = request.contentType?.lowercased(), type == "application/json" || type.hasPrefix("application/json;") else {
                return .refused(Self.error(415, "the body must be application/json, not \(request.contentType ?? "untyped")"))
            }
            if let length = request.contentLength, length > Self.maximumBody {
                return .refused(Self.error(413, "the request is larger than \(Self.maximumBody) bytes"))
            }
        }
        return .admitted(Route(kind: kind, store: store, account: account, tokenHash: tokenHash))
    }

    /// `GET /readyz`: 200 when the server takes requests (not stopping, the
    /// database answers, its schema current since it was opened), else 503 and why.
    func readiness() async -> ServerResponse {
        if hub.stopping.withLock({ $0 }) { return Self.json(503, ["status": "not ready", "reason": "the server is stopping"]) }
        do { _ = try await backend.tokenGeneration() } catch {
            return Self.json(503, ["status": "not ready", "reason": "the database does not answer"])
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
        }
    }

    /// The account of the request's bearer token, or the refusal to send.
    func authenticate(_ request: ServerRequest) async -> Result<AuthenticatedToken, Refusal> {
        guard let header = request.authorization, header.lowercased().hasPrefix("bearer ") else {
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

    // MARK: Commits

    /// A commit's body checked against the protocol's rules, or the answer that refuses it.
    enum ValidatedCommit {
        case changes([CheckedChange])
        case refused(ServerResponse)
    }

    /// Checks a commit's body: the store's name, the size, the JSON, the number of changes, keys
    /// that appear once, bases that are not negative, keys without control characters, values
    /// that are binary property lists within the limits, and the total (refused before the rest
    /// is decoded).
    static func validated(_ request: ServerRequest, store: String) -> ValidatedCommit {
        guard UbiquityLimits.isValidStoreIdentifier(store) else { return .refused(Self.badStore(store)) }
        guard request.body.count <= Self.maximumBody else { return .refused(Self.error(413, "the request is larger than \(Self.maximumBody) bytes")) }
        let commit: UbiquityCommitRequest
        if let usual = WireJSON.commitRequest(request.body) {
            commit = usual
        } else {
            do { commit = try JSONDecoder().decode(UbiquityCommitRequest.self, from: Data(request.body)) } catch {
                return .refused(Self.error(400, "the body is not a commit: \(Self.describe(error))"))
            }
        }
        guard !commit.changes.isEmpty else { return .refused(Self.error(400, "a commit needs at least one change")) }
        guard commit.changes.count <= Self.maximumChanges else {
            return .refused(Self.error(400, "a commit holds at most \(Self.maximumChanges) changes; this one has \(commit.changes.count)"))
        }
        var seen = Set<LiteralString>()
        var checked: [CheckedChange] = []
        // The values' sizes so far: a commit whose values alone exceed a
        // store's total is refused before the rest is decoded.
        var total = 0
        for change in commit.changes {
            guard seen.insert(change.key).inserted else { return .refused(Self.error(400, "the key \"\(change.key)\" appears twice in the commit")) }
            guard change.base >= 0 else { return .refused(Self.error(400, "the base revision of \"\(change.key)\" is negative")) }
            if let c = change.key.unicodeScalars.first(where: UbiquityLimits.isControl) {
                return .refused(Self.error(400, "the key \"\(change.key)\" holds the control character U+\(String(c.value, radix: 16, uppercase: true)); keys are text without control characters"))
            }
            var bytes: [UInt8]? = nil
            if let text = change.value {
                switch UbiquityWireValue.decodeChecked(text) {
                case .failure(.malformed(let why)):
                    return .refused(Self.error(400, "the value of \"\(change.key)\" is not base64 of a binary property list: \(why)"))
                case .failure(.tooLarge(let why)):
                    return .refused(Self.error(413, "the value of \"\(change.key)\" is refused: \(why)"))
                case .success(let value):
                    // Encoded once: the stored bytes, whose length is the size the limits count.
                    let encoded = value.encodedBinary
                    total += encoded.count
                    guard total <= UbiquityLimits.maximumTotalBytes + UbiquityLimits.maximumValueBytes else {
                        return .refused(Self.error(413, "the commit's values total more than \(UbiquityLimits.maximumTotalBytes) bytes, more than a store holds"))
                    }
                    bytes = encoded
                }
            }
            checked.append(CheckedChange(key: change.key, base: change.base, bytes: bytes))
        }
        return .changes(checked)
    }

    func commit(_ request: ServerRequest, account: UbiquityAccountInfo, store: String, tokenHash: [UInt8]) async -> ServerResponse {
        let checked: [CheckedChange]
        switch Self.validated(request, store: store) {
        case .changes(let changes): checked = changes
        case .refused(let answer):
            ServerMetrics.invalidCommit()
            return answer
        }
        // The token was valid when the head arrived; the body may have taken long: the backend
        // checks it again in the transaction that applies the commit.
        let hash: [UInt8]? = tokenHash.isEmpty ? nil : tokenHash
        let stamp = hub.stamp(account: account.id, store: store)
        let outcome: CommitOutcome
        let started = ContinuousClock.now
        do {
            outcome = try await withSpan("database commit") { span in
                span.attributes["ubiquity.store"] = store
                span.attributes["ubiquity.changes"] = checked.count
                return try await backend.commit(account: account.id, store: store, changes: checked, tokenHash: hash)
            }
        } catch {
            ServerMetrics.commit(outcome: "unavailable", duration: .now - started)
            return unavailable(error)
        }
        if outcome.tokenRevoked {
            if let hash { tokens.forget(hash) }
            ServerMetrics.commit(outcome: "unauthorized", duration: .now - started)
            return Self.unauthorized("the token is not valid")
        }
        let conflicts = outcome.response.results.filter { $0.status == .conflict }.count
        ServerMetrics.conflicts(conflicts)
        if let refusal = outcome.response.refusal {
            ServerMetrics.quotaRefusal(refusal.hasPrefix("quota \"bytes\"") ? "bytes" : refusal.hasPrefix("quota \"stores\"") ? "stores" : "other")
        }
        ServerMetrics.commit(outcome: outcome.response.refusal != nil ? "quota" : outcome.applied.isEmpty && conflicts > 0 ? "conflict" : "applied",
                             duration: .now - started)
        if !outcome.applied.isEmpty {
            let revision = outcome.response.revision
            hub.published(account: account.id, store: store, revision: revision, since: stamp) {
                let answer = Self.json(200, UbiquityChangesResponse(revision: revision, complete: false, entries: outcome.applied)).body
                return ChangeHub.Commit(revision: revision, encoded: answer)
            }
        }
        return Self.json(outcome.response.refusal == nil ? 200 : 422, outcome.response)
    }

    // MARK: Changes

    func changes(_ request: ServerRequest, account: UbiquityAccountInfo, store: String, tokenHash: [UInt8]) async -> ServerResponse {
        let after: Int64, seconds: Double
        switch Self.changesParameters(request, store: store, defaultWait: 0) {
        case .failure(let refusal): return refusal.response
        case .success(let p): (after, seconds) = p
        }
        let result: Result<ChangesAnswer, Refusal>
        if seconds > 0 {
            ServerMetrics.longPolls.increment()
            defer { ServerMetrics.longPolls.decrement() }
            // Known by its token, as a stream is: a revocation ends the wait, and the poll answers 401.
            let poll = LongPoll()
            tokens.opened(poll, by: tokenHash)
            defer { tokens.closed(poll, by: tokenHash) }
            guard let answer = await poll.run({ [self] in
                await nextChanges(account: account, store: store, after: after, waiting: .milliseconds(Int64(seconds * 1000)))
            }) else { return Self.unauthorized("the token is not valid") }
            result = answer
        } else {
            result = await nextChanges(account: account, store: store, after: after, waiting: nil)
        }
        switch result {
        case .failure(let refusal): return refusal.response
        case .success(let answer): return ServerResponse(status: 200, contentType: "application/json", body: answer.body)
        }
    }

    /// `GET /v1/stores/{store}/events`: the same answers as ``changes(_:account:store:)``
    /// as server-sent events on one response, for `wait` seconds (default and
    /// most: ``maximumWait``; the client then asks again from its last revision).
    /// The first event answers at once (possibly with no entries: it says the
    /// stream is open and the store's revision); each commit after it is one
    /// more event. A commit costs a watcher one write, not a request.
    func events(_ request: ServerRequest, account: UbiquityAccountInfo, store: String, tokenHash: [UInt8]) async -> ServerResponse {
        let after: Int64, seconds: Double
        switch Self.changesParameters(request, store: store, defaultWait: Self.maximumWait) {
        case .failure(let refusal): return refusal.response
        case .success(let p): (after, seconds) = p
        }
        // Registered before the first read: no commit falls between the read and the stream.
        let subscription = hub.openStream(account: account.id, store: store)
        // Known by its token: a revocation ends it (``checkTokenGeneration()``).
        tokens.opened(subscription, by: tokenHash)
        let closeStream = { @Sendable [self] in
            hub.closeStream(subscription)
            tokens.closed(subscription, by: tokenHash)
        }
        // The stream's end, set now: it comes even if the stream is never run (a client that
        // leaves before the answer's head is written must not leave its subscription behind).
        let expiry = Task {
            try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            closeStream()
        }
        // The first answer before the stream starts: a failure is then an ordinary status.
        let first: ChangesAnswer
        switch await nextChanges(account: account, store: store, after: after, waiting: nil) {
        case .failure(let refusal):
            expiry.cancel()
            closeStream()
            return refusal.response
        case .success(let answer): first = answer
        }
        let stream = ResponseStream { [self] send in
            ServerMetrics.streams.increment()
            defer {
                ServerMetrics.streams.decrement()
                expiry.cancel()
                closeStream()
            }
            do { try await send(first.event) } catch { return }
            // A cancelled stream (the server shutting down) ends at once.
            await withTaskCancellationHandler {
                await self.follow(subscription, account: account, store: store, after: first.revision, send)
            } onCancel: {
                subscription.end()
            }
        }
        return ServerResponse(status: 200, contentType: "text/event-stream", stream: stream)
    }

    /// Sends the commits of a store after `after` as they come, until the stream ends.
    func follow(_ subscription: StreamSubscription, account: UbiquityAccountInfo, store: String, after: Int64,
                _ send: (ResponseChunk) async throws -> Void) async {
        var after = after
        while let (commits, reread) = await subscription.next() {
            // Commits that follow on from what the client has are sent as they are;
            // a gap (or a wake-up from another server) is a read.
            var read = reread
            for commit in commits where commit.revision > after {
                guard !read, commit.revision == after + 1 else { read = true; break }
                do { try await send(commit.event) } catch { return }
                ServerMetrics.fanout(.now - commit.published)
                after = commit.revision
            }
            guard read else { continue }
            switch await self.read(account: account, store: store, after: after) {
            case .failure(let refusal):
                try? await send(ServerSentEvent.error(data: refusal.response.body))
                return
            case .success(let answer):
                if !answer.empty {
                    do { try await send(answer.event) } catch { return }
                }
                after = max(after, answer.revision)
            }
        }
    }

    /// A refusal as a value (a response is not an error).
    struct Refusal: Error {
        var response: ServerResponse
    }

    /// The store, `after` and `wait` (`defaultWait` when not given) of a changes request, checked.
    static func changesParameters(_ request: ServerRequest, store: String, defaultWait: Double) -> Result<(after: Int64, wait: Double), Refusal> {
        guard UbiquityLimits.isValidStoreIdentifier(store) else { return .failure(Refusal(response: badStore(store))) }
        let query = request.queryFields
        let afterText = query["after"] ?? "0"
        guard let after = Int64(afterText), after >= 0 else {
            return .failure(Refusal(response: error(400, "after must be a revision (0 or more), not \"\(afterText)\"")))
        }
        let waitText = query["wait"] ?? "\(defaultWait)"
        guard let wait = Double(waitText), wait.isFinite, wait >= 0, wait <= maximumWait else {
            return .failure(Refusal(response: error(400, "wait must be seconds from 0 to \(Int(maximumWait)), not \"\(waitText)\"")))
        }
        return .success((after, wait))
    }

    /// One answer to "what changed after `after`": the long poll's body, the
    /// event stream's event, and the revision it brings the client to.
    struct ChangesAnswer {
        var revision: Int64
        var body: [UInt8]
        /// Nothing changed (the wait ended).
        var empty: Bool
        /// A commit's event, made once for every stream; nil for a read's answer.
        var sharedEvent: ResponseChunk?

        /// The answer as one server-sent event (framed only when a stream sends it).
        var event: ResponseChunk { sharedEvent ?? ServerSentEvent.frame(revision: revision, data: body) }

        init(_ commit: ChangeHub.Commit) {
            (revision, body, empty, sharedEvent) = (commit.revision, commit.encoded, false, commit.event)
        }

        init(_ response: UbiquityChangesResponse) {
            revision = response.revision
            body = UbiquityService.json(200, response).body
            empty = response.entries.isEmpty && !response.complete
        }
    }

    /// The changes of a store after `after`, waiting at most `waiting` (a long
    /// poll) when there are none; nil answers at once.
    ///
    /// A watcher subscribes before it reads, so no commit falls between its
    /// read and its wait; one that has seen the newest revision this server
    /// knows waits without reading, and one exactly one revision behind a
    /// commit answers with the commit's own pre-encoded answer.
    func nextChanges(account: UbiquityAccountInfo, store: String, after: Int64, waiting: Duration?) async -> Result<ChangesAnswer, Refusal> {
        let poll = waiting.map { (ticket: hub.subscribe(account: account.id, store: store), timeout: $0) }
        // A watcher that has seen the newest revision this server knows waits without a read.
        if let poll, let known = hub.knownRevision(account: account.id, store: store), known == after {
            let commit = await hub.wait(poll.ticket, timeout: poll.timeout)
            if let commit, commit.revision == after + 1 { return .success(ChangesAnswer(commit)) }
            if commit == nil { return .success(ChangesAnswer(UbiquityChangesResponse(revision: after, complete: false, entries: []))) }
            return await read(account: account, store: store, after: after)
        }
        let stamp = hub.stamp(account: account.id, store: store)
        let first: UbiquityChangesResponse
        do { first = try await sharedRead(account: account.id, store: store, after: after, stamp: stamp) } catch {
            if let poll { hub.cancel(poll.ticket) }
            return .failure(Refusal(response: unavailable(error)))
        }
        hub.note(account: account.id, store: store, revision: first.revision, since: stamp)
        guard let poll, first.entries.isEmpty, !first.complete else {
            if let poll { hub.cancel(poll.ticket) }
            return .success(ChangesAnswer(first))
        }
        let commit = await hub.wait(poll.ticket, timeout: poll.timeout)
        if let commit, commit.revision == first.revision + 1, after == first.revision {
            return .success(ChangesAnswer(commit))
        }
        if commit == nil { return .success(ChangesAnswer(first)) }
        return await read(account: account, store: store, after: after)
    }

    /// The backend's answer, one query for every watcher asking the same at the same time.
    func sharedRead(account: String, store: String, after: Int64, stamp: ChangeHub.Stamp) async throws -> UbiquityChangesResponse {
        let backend = self.backend
        return try await reads.read(account: account, store: store, after: after, stamp: stamp) {
            try await backend.changes(account: account, store: store, after: after)
        }
    }

    func read(account: UbiquityAccountInfo, store: String, after: Int64) async -> Result<ChangesAnswer, Refusal> {
        do {
            let stamp = hub.stamp(account: account.id, store: store)
            let r = try await sharedRead(account: account.id, store: store, after: after, stamp: stamp)
            hub.note(account: account.id, store: store, revision: r.revision, since: stamp)
            return .success(ChangesAnswer(r))
        } catch {
            return .failure(Refusal(response: unavailable(error)))
        }
    }

    // MARK: Answers

    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }()

    static func json(_ status: Int, _ value: some Encodable) -> ServerResponse {
        let body = (try? encoder.encode(value)).map { [UInt8]($0) } ?? Array(#"{"error":"encoding failed"}"#.utf8)
        return ServerResponse(status: status, contentType: "application/json", body: body)
    }

    /// A commit's answer (written by ``WireJSON``: the commit path's JSON by hand).
    static func json(_ status: Int, _ value: UbiquityCommitResponse) -> ServerResponse {
        ServerResponse(status: status, contentType: "application/json", body: WireJSON.encode(value))
    }

    /// A changes answer (written by ``WireJSON``).
    static func json(_ status: Int, _ value: UbiquityChangesResponse) -> ServerResponse {
        ServerResponse(status: status, contentType: "application/json", body: WireJSON.encode(value))
    }

    static func error(_ status: Int, _ message: String) -> ServerResponse {
        var r = json(status, ["error": message])
        // The database is away: come back in a second (clients back off as well).
        if status == 503 { r.headers.append("Retry-After", "1") }
        return r
    }

    /// A backend's failure: its own status and message, or 503; every 5xx is
    /// also a log line (at most one a second, with the count of those left out).
    /// Damage the database reports while serving is a 503 saying so: an answer
    /// is the whole of what was asked or nothing.
    func unavailable(_ error: any Error) -> ServerResponse {
        let status: Int, message: String
        if let e = error as? BackendError {
            (status, message) = (e.status, e.message)
        } else if "\(error)".contains("corrupt") || "\(error)".contains("malformed") {
            (status, message) = (503, "the database is damaged (\(error)); restore it from a backup")
        } else {
            (status, message) = (503, "the database is unavailable: \(error)")
        }
        if status >= 500 { logFailure(message) }
        return Self.error(status, message)
    }

    /// Logs `message` unless a failure was logged less than a second ago (counted, and said with the next).
    func logFailure(_ message: String) {
        let now = ContinuousClock.now
        let line = failureLog.withLock { state -> String? in
            if let last = state.last, now - last < .seconds(1) {
                state.skipped += 1
                return nil
            }
            defer { state = (now, 0) }
            return state.skipped > 0 ? "\(message) (and \(state.skipped) more failures in the second before)" : message
        }
        if let line { log(line) }
    }

    static func unauthorized(_ message: String) -> ServerResponse {
        var r = error(401, message)
        r.headers.append("WWW-Authenticate", "Bearer realm=\"ubiquity\"")
        return r
    }

    static func badStore(_ store: String) -> ServerResponse {
        error(400, "invalid store identifier \"\(store)\": expected 1 to 255 letters, digits, '.', '-' or '_', not starting with '.'")
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let c): "missing \"\(key.stringValue)\" at \(path(c.codingPath))"
        case DecodingError.typeMismatch(let t, let c): "expected \(t) at \(path(c.codingPath))"
        case DecodingError.valueNotFound(let t, let c): "expected \(t) at \(path(c.codingPath))"
        case DecodingError.dataCorrupted(let c): "malformed JSON at \(path(c.codingPath)): \(c.debugDescription)"
        default: "\(error)"
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the top level" : keys.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
    }
}

extension PropertyList {
    var encodedBinary: [UInt8] { (try? encoded(as: .binary, options: .init())) ?? [] }
}
