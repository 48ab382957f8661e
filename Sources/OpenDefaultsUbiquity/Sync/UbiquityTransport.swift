/// The seam between a store and its sync server: how commits go up and
/// changes come down. `OpenDefaultsUbiquityHTTP` implements it over HTTP;
/// tests may implement it in memory.
///
/// ```swift
/// let transport = HTTPUbiquityTransport(account: account)
/// let response = try await transport.changes(store: "com.example.notes", after: 0, wait: nil)
/// ```
public protocol UbiquityTransport: Sendable {
    /// Sends a commit for `store`.
    /// - Throws: ``UbiquityError/unreachable(_:)`` or ``UbiquityError/unauthorized(_:)``;
    ///   a refusal for limits is a response with ``UbiquityCommitResponse/refusal`` set.
    func commit(store: String, _ request: UbiquityCommitRequest) async throws(UbiquityError) -> UbiquityCommitResponse

    /// The keys of `store` changed after revision `after`; when there are
    /// none, waits up to `wait` for one (a long poll) before answering.
    /// - Throws: ``UbiquityError/unreachable(_:)`` or ``UbiquityError/unauthorized(_:)``.
    func changes(store: String, after: Int64, wait: Duration?) async throws(UbiquityError) -> UbiquityChangesResponse

    /// The changes of `store` after revision `after` as they happen: the
    /// first answer at once (possibly without entries: it gives the store's
    /// revision), then one per change, until the transport ends the stream
    /// (the caller then asks again from the last revision it applied).
    ///
    /// The stream fails with ``UbiquityError/unreachable(_:)`` or
    /// ``UbiquityError/unauthorized(_:)``. The default is the first answer and
    /// one long poll of ``changes(store:after:wait:)``; the HTTP transport
    /// holds one server-sent event stream instead.
    ///
    /// ```swift
    /// for try await answer in transport.events(store: "com.example.notes", after: cursor) {
    ///     cursor = answer.revision
    /// }
    /// ```
    func events(store: String, after: Int64) -> AsyncThrowingStream<UbiquityChangesResponse, any Error>
}

extension UbiquityTransport {
    /// The first answer and one long poll of ``changes(store:after:wait:)``.
    public func events(store: String, after: Int64) -> AsyncThrowingStream<UbiquityChangesResponse, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let first = try await changes(store: store, after: after, wait: nil)
                    continuation.yield(first)
                    let next = try await changes(store: store, after: first.revision, wait: .seconds(25))
                    if !next.entries.isEmpty || next.complete { continuation.yield(next) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
