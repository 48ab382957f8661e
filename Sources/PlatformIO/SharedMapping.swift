#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's pages mapped shared into memory (`mmap` … `MAP_SHARED`): stores
/// reach the kernel's page cache at once, so they outlive the process.
package enum SharedMapping {
    /// Maps the first `bytes` of `descriptor` for reading and writing, pages
    /// populated up front; nil when it cannot be mapped.
    package static func map(_ descriptor: FileDescriptor, bytes: Int) -> UnsafeMutableRawPointer? {
        #if os(Linux)
        let flags = MAP_SHARED | MAP_POPULATE
        #else
        let flags = MAP_SHARED
        #endif
        guard let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, flags, descriptor.rawValue, 0), p != MAP_FAILED else { return nil }
        return p
    }

    /// Unmaps `bytes` at `base`.
    package static func unmap(_ base: UnsafeMutableRawPointer, bytes: Int) { _ = munmap(base, bytes) }
}
