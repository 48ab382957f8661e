#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

/// Memory from the C allocator that grows in place where it can (`realloc`):
/// glibc moves a large block by remapping its pages, so a buffer that doubles
/// up to many megabytes is neither copied nor touched again as it grows.
///
/// ```swift
/// var p = GrowableMemory.allocate(byteCount: 4096)
/// p = GrowableMemory.reallocate(p, byteCount: 1 << 20)
/// GrowableMemory.free(p)
/// ```
package enum GrowableMemory {
    /// `byteCount` bytes (at least one), uninitialized; stops the process when memory is exhausted.
    package static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        guard let p = malloc(max(byteCount, 1)) else { fatalError("out of memory for \(byteCount) bytes") }
        return p
    }

    /// `pointer`'s block resized to `byteCount` bytes, its contents kept.
    package static func reallocate(_ pointer: UnsafeMutableRawPointer, byteCount: Int) -> UnsafeMutableRawPointer {
        guard let p = realloc(pointer, max(byteCount, 1)) else { fatalError("out of memory for \(byteCount) bytes") }
        return p
    }

    /// Makes every block of 128 KiB or more a mapping of its own, given back
    /// to the system as soon as it is freed (on glibc; elsewhere nothing).
    ///
    /// glibc otherwise raises that threshold to the size of the largest
    /// mapped block freed so far: after a tool lets a 10 MB input go, its
    /// later blocks of up to 10 MB come from the heap, and their memory stays
    /// in the process after they are freed too, adding to its peak. `plutil`
    /// calls this first; a long-running process should not (a mapped block
    /// costs a system call and fresh pages every time).
    package static func mapLargeBlocks() {
        #if canImport(Glibc)
        _ = glibcMallopt(-3, 128 * 1024)  // M_MMAP_THRESHOLD
        #endif
    }

    /// Gives back what ``allocate(byteCount:)`` or ``reallocate(_:byteCount:)`` returned.
    package static func free(_ pointer: UnsafeMutableRawPointer) { release(pointer) }
}

@inline(__always) private func release(_ p: UnsafeMutableRawPointer) { free(p) }

#if canImport(Glibc)
@_silgen_name("mallopt") private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif
