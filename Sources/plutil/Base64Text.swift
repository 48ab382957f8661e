#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Strict base64 for command-line values and `-extract … raw` output.
enum Base64Text {
    static func decode(_ text: String) -> Data? {
        Data(base64Encoded: text, options: .ignoreUnknownCharacters)
    }

    static func encode(_ data: Data) -> String { data.base64EncodedString() }
}
