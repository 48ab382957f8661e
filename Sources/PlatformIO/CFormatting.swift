#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

/// The C library's number formatting, which Apple's property-list writers
/// use and whose digits Swift's own formatting does not reproduce.
package enum CFormatting {
    /// `%.*g` with `precision` significant digits (locale-free digits).
    ///
    /// ```swift
    /// CFormatting.g(0.1, precision: 17)   // "0.10000000000000001"
    /// ```
    package static func g(_ v: Double, precision: Int32) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 40) { buf in
            let n = withVaList([precision, v]) { vsnprintf(buf.baseAddress!, 40, "%.*g", $0) }
            return String(decoding: UnsafeRawBufferPointer(start: buf.baseAddress!, count: Int(n)), as: UTF8.self)
        }
    }
}
