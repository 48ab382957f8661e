public import NIOCore

/// A key's entry as the database holds it before a commit.
public struct CurrentEntry: Sendable {
    package var revision: Int64
    package var size: Int
    /// The value's binary property list; nil for a removal's tombstone.
    package var value: ByteBuffer?

    public init(revision: Int64, size: Int, value: ByteBuffer?) {
        self.revision = revision
        self.size = size
        self.value = value
    }
}
