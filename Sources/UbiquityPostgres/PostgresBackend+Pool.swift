import PostgresNIO

extension PostgresBackend {
    /// The pool's client and the task that runs it (``PostgresBackend/pool``).
    struct Pool: Sendable {
        var client: PostgresClient
        var task: Task<Void, Never>
    }
}
