#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

/// Zeroed memory from the C allocator (`calloc`): its large blocks are fresh
/// pages the kernel zeroes when first touched, so memory that is mostly
/// never read costs nothing to clear.
///
/// ```swift
/// let states = ZeroedMemory.allocate(count: 200_000, of: UInt64.self)
/// defer { ZeroedMemory.free(states) }
/// ```
package enum ZeroedMemory {
    /// `count` zeroed values of `type` (at least one); stops the process when memory is exhausted.
    package static func allocate<T>(count: Int, of type: T.Type) -> UnsafeMutablePointer<T> {
        guard let raw = calloc(max(count, 1), MemoryLayout<T>.stride) else { fatalError("out of memory for \(count) × \(T.self)") }
        return raw.assumingMemoryBound(to: T.self)
    }

    /// Gives back what ``allocate(count:of:)`` returned.
    package static func free<T>(_ pointer: UnsafeMutablePointer<T>) { systemFree(pointer) }
}

@inline(__always) private func systemFree(_ p: UnsafeMutableRawPointer) { free(p) }
