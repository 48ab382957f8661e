import PlatformIO

extension Array where Element: BitwiseCopyable {
    /// An empty array with room for `count` elements, large pages advised
    /// for it (``LargePages``): a buffer reserved at what a document can
    /// need at most, then filled as it is read.
    static func reservingLargeCapacity(_ count: Int) -> [Element] {
        [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            advise(buffer)
            initialized = 0
        }
    }

    /// `count` copies of `value`, in large pages where the system allows (a table written
    /// whole as it is made).
    init(repeatingInLargePages value: Element, count: Int) {
        self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            Self.advise(buffer)
            buffer.initialize(repeating: value)
            initialized = count
        }
    }

    private static func advise(_ buffer: UnsafeMutableBufferPointer<Element>) {
        guard let base = buffer.baseAddress else { return }
        LargePages.advise(UnsafeMutableRawPointer(base), byteCount: buffer.count * MemoryLayout<Element>.stride)
    }
}
