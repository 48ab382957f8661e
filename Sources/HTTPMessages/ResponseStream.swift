/// A response body written over time (server-sent events): `run` sends each
/// chunk through `send`, which throws once the client is gone, and returns
/// when the stream ends.
///
/// ```swift
/// let stream = ResponseStream { send in
///     try? await send(ResponseChunk(Array("data: hello\n\n".utf8)))
/// }
/// ```
package struct ResponseStream: Sendable {
    package var run: @Sendable (_ send: (_ chunk: ResponseChunk) async throws -> Void) async -> Void

    package init(_ run: @escaping @Sendable (_ send: (_ chunk: ResponseChunk) async throws -> Void) async -> Void) {
        self.run = run
    }
}
