import PlatformIO

extension Array where Element: BitwiseCopyable {
    /// An empty array with room for `count` elements, large pages advised
    /// for it (``LargePages``): a buffer reserved at what a document can
    /// need at most, then filled as it is read.
    static func reservingLargeCapacity(_ count: Int) -> [Element] {
        [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress {
                LargePages.advise(UnsafeMutableRawPointer(base), byteCount: buffer.count * MemoryLayout<Element>.stride)
            }
            initialized = 0
        }
    }
}
