#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a `defaults write` value could not be parsed.
package enum WriteValueError: Error, Equatable {
    /// The arguments do not fit the grammar (a usage error: macOS prints the usage text);
    /// the problem in one line, naming the flag and the value.
    case usage(String)
    /// A specific complaint, worded as macOS `defaults` words it (it begins with a newline).
    case message(String)

    /// The complaint without macOS's leading newline, for tools that print it themselves.
    package var text: String {
        switch self {
        case .usage(let problem): problem
        case .message(let m): m.hasPrefix("\n") ? String(m.dropFirst()) : m
        }
    }
}
