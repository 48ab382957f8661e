#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// Base64 of bytes (the wire's value encoding).
package enum Base64 {
    package static func encode(_ bytes: some Sequence<UInt8>) -> String { Data(bytes).base64EncodedString() }
}
