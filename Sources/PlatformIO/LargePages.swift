#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

/// Advice to the kernel that a large block be backed by large pages.
///
/// A buffer of many megabytes that is filled once (a document read whole,
/// a table built from it) costs a page fault for every 4 KiB touched: on the
/// benchmarks' 10 MB document, `plutil -convert binary1` took about 6,500
/// faults and spent a sixth of its time in them (proposal 0019). Where the
/// system's transparent huge pages are enabled "always" or "madvise"
/// (Debian's default), the 2 MiB-aligned part of a block so advised faults
/// once per 2 MiB. Elsewhere, or when the kernel refuses, nothing changes.
///
/// ```swift
/// let p = GrowableMemory.allocate(byteCount: 16 << 20)
/// LargePages.advise(p, byteCount: 16 << 20)
/// ```
package enum LargePages {
    /// Blocks smaller than this are left alone: a large page would hold
    /// memory the block does not use.
    package static let threshold = 4 << 20

    /// The size of a large page (x86-64 and arm64 with 4 KiB pages).
    package static let pageSize = 2 << 20

    /// The addresses of the whole large pages inside `byteCount` bytes at `address`: nil for a
    /// block under ``threshold`` or one that holds no whole large page.
    package static func wholePages(at address: Int, byteCount: Int) -> Range<Int>? {
        guard byteCount >= threshold else { return nil }
        let start = (address + pageSize - 1) & ~(pageSize - 1)
        let end = (address + byteCount) & ~(pageSize - 1)
        return end > start ? start..<end : nil
    }

    /// Advises the whole 2 MiB pages inside `byteCount` bytes at `pointer`.
    /// Memory is not touched, and nothing fails: this is a hint.
    package static func advise(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        guard let pages = wholePages(at: Int(bitPattern: pointer), byteCount: byteCount),
              let at = UnsafeMutableRawPointer(bitPattern: pages.lowerBound) else { return }
        _ = madvise(at, pages.count, 14)  // MADV_HUGEPAGE
        #endif
    }
}
