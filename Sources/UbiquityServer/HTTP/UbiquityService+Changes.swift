#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import UbiquityProtocol
import HTTPMessages
import CoreMetrics
import UbiquityBackend

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
}
