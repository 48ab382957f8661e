#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PlatformIO

/// One 8-byte state per object of a binary plist, zeroed. The memory comes
/// from ``ZeroedMemory`` (`calloc`), whose large blocks are fresh pages the kernel zeroes when
/// first touched: a one-key lookup in a file of 200,000 objects touches a few
/// pages instead of clearing 1.6 MB. Indices are checked by the reader
/// (every reference is below the object count) before use.
final class ObjectStates {
    let pointer: UnsafeMutablePointer<UInt64>

    init(count: Int) {
        pointer = ZeroedMemory.allocate(count: count, of: UInt64.self)
    }

    deinit { ZeroedMemory.free(pointer) }
}
