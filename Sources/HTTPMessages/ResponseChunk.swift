package import SharedTables

/// One piece of a ``ResponseStream``: its bytes, and room for the server's
/// own form of them, made once and shared by every connection that sends
/// the chunk (a commit's event goes to thousands of watchers; the adapter
/// converts it to a NIO buffer once, not once per watcher).
///
/// ```swift
/// let event = ResponseChunk(Array("id: 7\ndata: {}\n\n".utf8))
/// ```
package final class ResponseChunk: Sendable {
    /// The bytes to send.
    package let bytes: [UInt8]
    /// The server adapter's converted form (see `HummingbirdAdapter`).
    package let converted = AttachmentSlot()

    package init(_ bytes: [UInt8]) { self.bytes = bytes }
}
