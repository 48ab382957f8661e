import PlatformIO
import SharedTables
import OpenDefaults
import Synchronization

/// Keeps one store's local copy and the server in step for one account:
/// uploads local writes (coalesced: a burst is one commit), downloads what
/// others wrote (an event stream that stays open), and reports what came from
/// elsewhere. Owned by its ``UbiquitousKeyValueStore``; ``stop()`` ends its tasks.
package final class SyncEngine: Sendable {
    package let replica: LocalReplica
    let transport: any UbiquityTransport
    let storeIdentifier: String
    let emit: @Sendable (UbiquityExternalChange) -> Void

    /// Uploads run one at a time (and the initial download with them).
    let uploads = AsyncGate()

    struct State {
        var uploadScheduled = false
        var watching: Task<Void, Never>? = nil
        var stopped = false
        /// Whether the last exchange reached the server (nil: none yet).
        var reachable: Bool? = nil
        /// Uploads that failed for the server's absence, and the last such error.
        var failedUploads = 0
        var lastUploadError: UbiquityError? = nil
    }
    let state = Lock(State())

    /// The longest wait between attempts to reach the server: a machine hears
    /// of a server's (or its database's) return within a second, as the sync
    /// server answers 503 with `Retry-After: 1` (it was 5 s, and a watcher
    /// that had failed a few times during an outage could miss changes for
    /// seconds after the recovery).
    static let maximumBackoff: Duration = .seconds(1)
    /// How long writes wait to be uploaded together.
    static let coalescingDelay: Duration = .milliseconds(2)

    package init(replica: LocalReplica, transport: any UbiquityTransport, storeIdentifier: String,
                 emit: @escaping @Sendable (UbiquityExternalChange) -> Void) {
        self.replica = replica
        self.transport = transport
        self.storeIdentifier = storeIdentifier
        self.emit = emit
    }

    /// Ends the watch; pending writes stay on disk for the next session.
    package func stop() {
        let task = state.withLock { s -> Task<Void, Never>? in
            s.stopped = true
            defer { s.watching = nil }
            return s.watching
        }
        task?.cancel()
    }

    /// Whether the last exchange with the server succeeded (nil: none yet).
    package var isReachable: Bool? { state.withLock { $0.reachable } }

    private func noteReachable(_ ok: Bool) { state.withLock { $0.reachable = ok } }

    // MARK: Uploading

    /// Asks for an upload soon; writes made meanwhile join it.
    package func scheduleUpload() {
        let start = state.withLock { s -> Bool in
            if s.uploadScheduled || s.stopped { return false }
            s.uploadScheduled = true
            return true
        }
        guard start else { return }
        Task { [self] in
            try? await Task.sleep(for: Self.coalescingDelay)
            state.withLock { $0.uploadScheduled = false }
            // A failure leaves the writes pending; the watch retries them.
            _ = try? await upload()
        }
    }

    /// Uploads every pending write now (after the initial download, when
    /// this machine has not had one).
    /// - Throws: ``UbiquityError/unreachable(_:)`` / ``UbiquityError/unauthorized(_:)``: the writes stay pending.
    @discardableResult
    package func upload() async throws(UbiquityError) -> [UbiquityError] {
        // An upload that waited behind one that could not reach the server fails with it
        // (a burst of callers does not each wait out a connection timeout).
        let failuresBefore = state.withLock { $0.failedUploads }
        do {
            return try await uploads.run { [self] in
                if let error = state.withLock({ $0.failedUploads > failuresBefore ? $0.lastUploadError : nil }) { throw error }
                var refusals: [UbiquityError] = []
                if !replica.initialSynced { try await download(after: 0, wait: nil, initial: true) }
                while true {
                    let all = replica.pending()
                    if all.isEmpty { break }
                    // The writes go into this machine's files before they go up. Another process
                    // here (`ubiquity watch`, another app on the store) that hears the server's
                    // echo of them reads the files, not this process's memory or journal: with
                    // the write still only in the journal (the files are flushed 20 ms after a
                    // write; an upload starts 2 ms after), it took this machine's own write for
                    // another machine's change. A flush that fails (a full disk) is reported by
                    // the domain to the store's handler and does not hold the upload back: the
                    // journal keeps the writes, and the server should have them.
                    try? replica.synchronize()
                    let batch = Array(all.prefix(256))
                    let request = UbiquityCommitRequest(changes: batch.map {
                        UbiquityWireChange(key: $0.key, base: $0.base, value: $0.value.map(UbiquityWireValue.encode))
                    })
                    let response: UbiquityCommitResponse
                    do { response = try await transport.commit(store: storeIdentifier, request) } catch {
                        noteReachable(false)
                        throw error
                    }
                    noteReachable(true)
                    let (conflicts, refused) = replica.apply(commit: response, sent: batch)
                    if !conflicts.isEmpty { emit(UbiquityExternalChange(reason: .serverChange, changedKeys: conflicts)) }
                    if !refused.isEmpty {
                        refusals.append(.refusedByServer(keys: refused, reason: response.refusal ?? "a limit"))
                        emit(UbiquityExternalChange(reason: .quotaViolationChange, changedKeys: refused))
                    }
                }
                return refusals
            }
        } catch let error as UbiquityError {
            state.withLock { s in
                switch error {
                case .unreachable, .notApplied: s.failedUploads += 1; s.lastUploadError = error
                default: break
                }
            }
            throw error
        } catch {
            throw .unreachable("\(error)")
        }
    }

    // MARK: Downloading

    /// Downloads the changes after `after` and applies them.
    func download(after: Int64, wait: Duration?, initial: Bool) async throws(UbiquityError) {
        let response: UbiquityChangesResponse
        do { response = try await transport.changes(store: storeIdentifier, after: after, wait: wait) } catch {
            noteReachable(false)
            throw error
        }
        noteReachable(true)
        try apply(response, initial: initial)
    }

    /// Applies a server's answer and reports the keys it changed.
    func apply(_ response: UbiquityChangesResponse, initial: Bool) throws(UbiquityError) {
        let changed = try replica.apply(changes: response, initial: initial)
        if !changed.isEmpty {
            emit(UbiquityExternalChange(reason: initial ? .initialSyncChange : .serverChange, changedKeys: changed))
        }
    }

    /// Follows the server's event stream from the local cursor and applies
    /// each answer, until the server ends the stream (after its 30 seconds).
    /// - Throws: when the server cannot be reached, or the stream ended without an answer.
    func follow() async throws(UbiquityError) {
        var answers = 0
        do {
            for try await response in transport.events(store: storeIdentifier, after: replica.cursor) {
                noteReachable(true)
                answers += 1
                try apply(response, initial: false)
            }
        } catch {
            noteReachable(false)
            throw (error as? UbiquityError) ?? .unreachable("\(error)")
        }
        if answers == 0, !Task.isCancelled {
            noteReachable(false)
            throw .unreachable("the server ended the event stream without an answer")
        }
    }

    /// Uploads, then downloads everything new, now.
    /// - Throws: also ``UbiquityError/refusedByServer(keys:reason:)`` after
    ///   the download when the server refused a write for a limit.
    package func synchronizeNow() async throws(UbiquityError) {
        let refusals = try await upload()
        try await download(after: replica.cursor, wait: nil, initial: false)
        if let first = refusals.first { throw first }
    }

    // MARK: Watching

    /// Starts the watch: upload what is pending, then follow the server's
    /// event stream (``UbiquityTransport/events(store:after:)``), again each
    /// time it ends, retrying with backoff (0.1 s doubling to ``maximumBackoff``) while the
    /// server is away.
    package func startWatching() {
        state.withLock { s in
            guard s.watching == nil, !s.stopped else { return }
            s.watching = Task { [weak self] in
                var backoff: Duration = .milliseconds(100)
                while !Task.isCancelled {
                    guard let engine = self else { return }
                    do {
                        try await engine.upload()
                        try await engine.follow()
                        backoff = .milliseconds(100)
                    } catch {
                        if Task.isCancelled { return }
                        try? await Task.sleep(for: backoff)
                        backoff = min(backoff * 2, Self.maximumBackoff)
                    }
                }
            }
        }
    }
}
