import Foundation
import Testing
import PlatformIO

/// `LargePages.advise` is a hint to the kernel for the whole large pages inside a block (never
/// beyond it), and a file read whole into an advised buffer (`FileIO.read`) is its bytes exactly.
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

    @Test("the pages advised are the whole large pages inside the block, and none below the threshold")
    func wholePagesOnly() {
        let page = LargePages.pageSize
        for address in [0, 1, 4_096, page - 1, page, page + 17, 7 * page + 4_095] {
            for count in [0, 1, LargePages.threshold - 1, LargePages.threshold, 2 * page + page / 2, 6 * page + 1] {
                let pages = LargePages.wholePages(at: address, byteCount: count)
                guard count >= LargePages.threshold else {
                    #expect(pages == nil, "\(count) bytes at \(address)")
                    continue
                }
                // A block of the threshold or more holds whole pages: all of them are advised,
                // and nothing outside the block.
                guard let pages else {
                    Issue.record("\(count) bytes at \(address): no pages")
                    continue
                }
                #expect(pages.lowerBound >= address && pages.upperBound <= address + count, "\(count) bytes at \(address): \(pages)")
                #expect(pages.lowerBound % page == 0 && pages.count % page == 0, "\(pages)")
                #expect(pages.lowerBound - page < address && pages.upperBound + page > address + count, "a whole page left out: \(pages)")
            }
        }
    }
}
