#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import UbiquityProtocol
import HTTPMessages
import CoreMetrics
import UbiquityBackend
import SharedTables
import Synchronization

// Changes: long polls and event streams, shared reads of one revision.
extension UbiquityService {
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
            result = await read(account: account, store: store, after: after)
        }
        switch result {
        case .failure(let refusal): return refusal.response
        case .success(let answer): return ServerResponse(status: 200, contentType: "application/json", body: answer.body)
        }
    }

    /// `GET /v1/stores/{store}/events`: the same answers as ``changes(_:account:store:)``
    /// as server-sent events on one response, for `wait` seconds (by default ``maximumWait``,
    /// at most ``maximumStreamWait``; the client then asks again from its last revision).
    /// The first event answers at once (possibly with no entries: it says the
    /// stream is open and the store's revision); each commit after it is one
    /// more event. A commit costs a watcher one write, not a request.
    func events(_ request: ServerRequest, account: UbiquityAccountInfo, store: String, tokenHash: [UInt8]) async -> ServerResponse {
        switch Self.changesParameters(request, store: store, defaultWait: Self.maximumWait, longest: Self.maximumStreamWait) {
        case .failure(let refusal): return refusal.response
        case .success(let p):
            return await stream([StreamStart(store: store, after: p.after)], seconds: p.wait, naming: false,
                                account: account, tokenHash: tokenHash)
        }
    }

    /// `GET /v1/events?stores=A:3,B:0`: one event stream for several stores (at most
    /// `UbiquityLimits.maximumStreamStores`), each from its own revision, for a client that follows
    /// them all (a fleet machine: its organisation's store and its groups'). It holds one
    /// connection and one stream on the server where one per store would hold several.
    /// Each event is the single-store stream's, with the store named first in its JSON.
    func events(_ request: ServerRequest, account: UbiquityAccountInfo, stores: [StreamStart], tokenHash: [UInt8]) async -> ServerResponse {
        switch Self.waitParameter(request, defaultWait: Self.maximumWait, longest: Self.maximumStreamWait) {
        case .failure(let refusal): return refusal.response
        case .success(let seconds):
            return await stream(stores, seconds: seconds, naming: true, account: account, tokenHash: tokenHash)
        }
    }

    /// The event stream of `starts` for `seconds`; its events name their store when `naming`.
    func stream(_ starts: [StreamStart], seconds: Double, naming: Bool, account: UbiquityAccountInfo, tokenHash: [UInt8]) async -> ServerResponse {
        // Registered before the first read: no commit falls between the read and the stream.
        let subscription = hub.openStream(account: account.id, stores: starts.map(\.store))
        // Known by its token: a revocation ends it (``checkTokenGeneration()``).
        tokens.opened(subscription, by: tokenHash)
        let closeStream = { @Sendable [self] in
            hub.closeStream(subscription)
            tokens.closed(subscription, by: tokenHash)
        }
        // The stream's end, set now: it comes even if the stream is never run (a client that
        // leaves before the answer's head is written must not leave its subscription behind).
        let expiry = deadlines.add(after: .milliseconds(Int64(seconds * 1000)), closeStream)
        // The first answers before the stream starts: a failure is then an ordinary status.
        var firsts: [ResponseChunk] = []
        var cursors: [StreamStart] = []
        for start in starts {
            switch await read(account: account, store: start.store, after: start.after) {
            case .failure(let refusal):
                deadlines.remove(expiry)
                closeStream()
                return refusal.response
            case .success(let answer):
                firsts.append(answer.event(naming: naming ? start.store : nil))
                cursors.append(StreamStart(store: start.store, after: answer.revision))
            }
        }
        // Let go of once sent: a first answer can hold a whole store, and the stream lives on.
        let unsent = Lock(firsts)
        let stream = ResponseStream { [self, cursors] send in
            ServerMetrics.streams.increment()
            defer {
                ServerMetrics.streams.decrement()
                deadlines.remove(expiry)
                closeStream()
            }
            do {
                let firsts = unsent.withLock { u in defer { u = [] }; return u }
                for first in firsts {
                    do { try await send(first) } catch { return }
                }
            }
            // A cancelled stream (the server shutting down) ends at once.
            await withTaskCancellationHandler {
                await self.follow(subscription, account: account, cursors, naming: naming, send)
            } onCancel: {
                subscription.end()
            }
        }
        return ServerResponse(status: 200, contentType: "text/event-stream", stream: stream)
    }

    /// Sends the commits of the stores after their cursors as they come, until the stream ends.
    func follow(_ subscription: StreamSubscription, account: UbiquityAccountInfo, _ cursors: [StreamStart], naming: Bool,
                _ send: (ResponseChunk) async throws -> Void) async {
        var cursors = cursors
        while let (commits, rereads) = await subscription.next() {
            // Commits that follow on from what the client has are sent as they are;
            // a gap (or a wake-up from another server) is a read of that store.
            var reads = rereads
            for commit in commits {
                guard let i = cursors.firstIndex(where: { $0.store == commit.store }), commit.revision > cursors[i].after,
                      !reads.contains(commit.store) else { continue }
                guard commit.revision == cursors[i].after + 1 else { reads.append(commit.store); continue }
                do { try await send(naming ? commit.storeEvent : commit.event) } catch { return }
                ServerMetrics.fanout(.now - commit.published)
                cursors[i].after = commit.revision
            }
            for i in cursors.indices where reads.contains(cursors[i].store) {
                switch await self.read(account: account, store: cursors[i].store, after: cursors[i].after) {
                case .failure(let refusal):
                    try? await send(ServerSentEvent.error(data: refusal.response.body))
                    return
                case .success(let answer):
                    if !answer.empty {
                        do { try await send(answer.event(naming: naming ? cursors[i].store : nil)) } catch { return }
                    }
                    cursors[i].after = max(cursors[i].after, answer.revision)
                }
            }
        }
    }

    /// A refusal as a value (a response is not an error).
    struct Refusal: Error {
        var response: ServerResponse
    }

    /// The store, `after` and `wait` (`defaultWait` when not given) of a changes request, checked.
    static func changesParameters(_ request: ServerRequest, store: String, defaultWait: Double,
                                  longest: Double = maximumWait) -> Result<(after: Int64, wait: Double), Refusal> {
        guard UbiquityLimits.isValidStoreIdentifier(store) else { return .failure(Refusal(response: badStore(store))) }
        let afterText = request.queryFields["after"] ?? "0"
        guard let after = Int64(afterText), after >= 0 else {
            return .failure(Refusal(response: error(400, "after must be a revision (0 or more), not \"\(afterText)\"")))
        }
        return waitParameter(request, defaultWait: defaultWait, longest: longest).map { (after, $0) }
    }

    /// The `wait` of a changes or events request (`defaultWait` when not given, at most `longest`), checked.
    static func waitParameter(_ request: ServerRequest, defaultWait: Double, longest: Double = maximumWait) -> Result<Double, Refusal> {
        let waitText = request.queryFields["wait"] ?? "\(defaultWait)"
        guard let wait = Double(waitText), wait.isFinite, wait >= 0, wait <= longest else {
            return .failure(Refusal(response: error(400, "wait must be seconds from 0 to \(Int(longest)), not \"\(waitText)\"")))
        }
        return .success(wait)
    }

    /// The `stores` of `GET /v1/events`: `store:after` pairs separated by commas (`after`
    /// may be left out for 0), 1 to `UbiquityLimits.maximumStreamStores` distinct stores, checked.
    static func streamStores(_ request: ServerRequest) -> Result<[StreamStart], Refusal> {
        func refuse(_ why: String) -> Result<[StreamStart], Refusal> { .failure(Refusal(response: error(400, why))) }
        guard let text = request.queryFields["stores"], !text.isEmpty else {
            return refuse("stores is required: the stores to follow, as store:revision pairs separated by commas (com.example.a:0,com.example.b:12)")
        }
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        guard items.count <= UbiquityLimits.maximumStreamStores else {
            return refuse("stores names \(items.count) stores; one stream follows at most \(UbiquityLimits.maximumStreamStores)")
        }
        var starts: [StreamStart] = []
        for item in items {
            let halves = item.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let store = String(halves[0])
            guard UbiquityLimits.isValidStoreIdentifier(store) else {
                return .failure(Refusal(response: badStore(store)))
            }
            let afterText = halves.count == 2 ? String(halves[1]) : "0"
            guard let after = Int64(afterText), after >= 0 else {
                return refuse("stores: the revision after \(store) must be 0 or more, not \"\(afterText)\"")
            }
            guard !starts.contains(where: { $0.store == store }) else { return refuse("stores names \(store) twice") }
            starts.append(StreamStart(store: store, after: after))
        }
        return .success(starts)
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
        /// Its event, naming `store` (in a stream of several stores) or not (nil).
        func event(naming store: String?) -> ResponseChunk {
            guard let store else { return event }
            return sharedStoreEvent ?? ServerSentEvent.frame(store: store, revision: revision, data: body)
        }
        /// The commit's event naming its store, made once for every stream.
        var sharedStoreEvent: ResponseChunk?

        init(_ commit: ChangeHub.Commit) {
            (revision, body, empty, sharedEvent, sharedStoreEvent) = (commit.revision, commit.encoded, false, commit.event, commit.storeEvent)
        }

        init(_ response: UbiquityChangesResponse) {
            revision = response.revision
            body = UbiquityService.json(200, response).body
            empty = response.entries.isEmpty && !response.complete
        }
    }

    /// The changes of a store after `after`, waiting at most `waiting` (a long
    /// poll) when there are none. Without a wait: ``read(account:store:after:)``.
    ///
    /// A watcher subscribes before it reads, so no commit falls between its
    /// read and its wait; one that has seen the newest revision this server
    /// knows waits without reading, and one exactly one revision behind a
    /// commit answers with the commit's own pre-encoded answer.
    func nextChanges(account: UbiquityAccountInfo, store: String, after: Int64, waiting: Duration) async -> Result<ChangesAnswer, Refusal> {
        let ticket = hub.subscribe(account: account.id, store: store)
        // A watcher that has seen the newest revision this server knows waits without a read.
        if let known = hub.knownRevision(account: account.id, store: store), known == after {
            let commit = await hub.wait(ticket, timeout: waiting)
            if let commit, commit.revision == after + 1 { return .success(ChangesAnswer(commit)) }
            if commit == nil { return .success(ChangesAnswer(UbiquityChangesResponse(revision: after, complete: false, entries: []))) }
            return await read(account: account, store: store, after: after)
        }
        let stamp = hub.stamp(account: account.id, store: store)
        let first: UbiquityChangesResponse
        do { first = try await sharedRead(account: account.id, store: store, after: after, stamp: stamp) } catch {
            hub.cancel(ticket)
            return .failure(Refusal(response: unavailable(error)))
        }
        hub.note(account: account.id, store: store, revision: first.revision, since: stamp)
        guard first.entries.isEmpty, !first.complete else {
            hub.cancel(ticket)
            return .success(ChangesAnswer(first))
        }
        let commit = await hub.wait(ticket, timeout: waiting)
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

    /// The changes after `after` as the backend has them now, without a wait (a poll with
    /// `wait=0`, and an event stream's first answers: a stream's connection task keeps the slabs
    /// of the deepest frames it ran, and this frame is a quarter the size of a long poll's).
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
}
