#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Base64 of bytes (the wire's value encoding).
enum Base64 {
    static func encode(_ bytes: some Sequence<UInt8>) -> String { Data(bytes).base64EncodedString() }
}

/// Random bytes from the system's generator, as lowercase hexadecimal.
package func randomHex(bytes: Int) -> String {
    var g = SystemRandomNumberGenerator()
    var out = ""
    for _ in 0..<bytes {
        let b = UInt8.random(in: 0...255, using: &g)
        out += String(b >> 4, radix: 16) + String(b & 15, radix: 16)
    }
    return out
}
