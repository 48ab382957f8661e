extension Array {
    /// The array in consecutive pieces of at most `size` elements (the last may be shorter),
    /// in order: a batch of statements' values, a machine's stores split among event streams.
    package func chunked(by size: Int) -> [ArraySlice<Element>] {
        precondition(size > 0, "chunked(by:) needs a size of at least 1")
        return stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
