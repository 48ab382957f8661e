import Foundation
import Testing
import PlatformIO

/// `LargePages.advise` is a hint to the kernel: whatever the block's size and alignment, the
/// memory advised keeps what is written to it, and a file read whole into an advised buffer
/// (`FileIO.read`) is its bytes exactly.
@Suite(.timeLimit(.minutes(10))) struct LargePagesTests {
    /// Bytes that differ from page to page (a page of zeros would pass a copy that lost it).
    static func pattern(_ count: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    @Test("a file read whole is its bytes exactly, below, at and above the large-page threshold")
    func filesReadWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("large-pages-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for size in [LargePages.threshold - 1, LargePages.threshold, LargePages.threshold + (2 << 20) + 123, 9_999_999] {
            let bytes = Self.pattern(size)
            let path = folder + "/\(size)"
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            #expect(try FileIO.read(path) == bytes, "\(size) bytes")
        }
    }

    @Test("advised blocks of any size and alignment keep what is written to them")
    func blocksKeepTheirBytes() {
        for (size, offset) in [(0, 0), (1, 1), (LargePages.threshold - 1, 3), (LargePages.threshold, 0), (6 << 20, 1), ((6 << 20) + 4_095, 17)] {
            let block = UnsafeMutableRawPointer.allocate(byteCount: size + offset + 1, alignment: 16)
            defer { block.deallocate() }
            let start = block + offset
            LargePages.advise(start, byteCount: size)
            let bytes = Self.pattern(size)
            bytes.withUnsafeBytes { start.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(block), byteCount: size) }
            #expect(Array(UnsafeRawBufferPointer(start: start, count: size)) == bytes, "\(size) bytes at +\(offset)")
        }
    }
}
