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
}
