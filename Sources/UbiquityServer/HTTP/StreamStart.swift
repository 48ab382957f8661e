/// A store an event stream follows, and the revision it follows it after
/// (the client's cursor when it opened the stream; the stream moves it on).
package struct StreamStart: Sendable, Hashable {
    package var store: String
    package var after: Int64

    package init(store: String, after: Int64) {
        self.store = store
        self.after = after
    }
}
