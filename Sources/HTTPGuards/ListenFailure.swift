package import NIOCore
import PlatformIO

/// Why a server could not listen, in the words its command prints: the address as given
/// (escaped: it came from the command line or a settings file) and the reason, for the two
/// ways SwiftNIO fails to bind (the address is taken or not allowed; the name does not resolve).
///
/// ```swift
/// } catch {
///     guard let reason = ListenFailure.reason(error, host: host, port: port) else { throw error }
///     complain(reason)   // "cannot listen on 127.0.0.1:8470: the address is in use (try another port with --port)"
/// }
/// ```
package enum ListenFailure {
    /// A failure to listen already put in words, for a listener that is not the one its
    /// command names on its own (the sync server's metrics listener).
    package struct Failed: Error, CustomStringConvertible, Sendable {
        package let description: String
        package init(_ description: String) { self.description = description }
    }

    /// The sentence for `error`, or nil when it is not a failure to listen; `option` is the
    /// one that sets the port, named when the address is taken.
    package static func reason(_ error: any Error, host: String, port: Int, option: String = "--port") -> String? {
        let address = "\(TerminalText.safe(HostNames.hostHeaderName(ofAddress: host))):\(port)"
        switch error {
        case let e as IOError where e.errnoCode == FileError.addressInUse:
            return "cannot listen on \(address): the address is in use (try another port with \(option))"
        case let e as IOError:
            return "cannot listen on \(address): \(FileError.text(errno: e.errnoCode))"
        case is SocketAddressError, is SocketAddressError.UnknownHost:
            return "cannot listen on \(address): the name does not resolve to an address"
        default:
            return nil
        }
    }
}
