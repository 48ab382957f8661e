#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Base64 of bytes (the wire's value encoding).
enum Base64 {
    static func encode(_ bytes: some Sequence<UInt8>) -> String { Data(bytes).base64EncodedString() }
}
