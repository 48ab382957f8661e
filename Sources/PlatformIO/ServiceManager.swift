#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The service manager's notification protocol (systemd's `sd_notify`),
/// written by hand: one datagram of `NAME=value` lines to the socket named
/// by `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace).
/// Outside a `Type=notify` service the variable is unset and nothing is sent.
///
/// ```swift
/// ServiceManager.notify("READY=1\nSTATUS=listening on http://127.0.0.1:8080")
/// if let every = ServiceManager.watchdogInterval { /* send "WATCHDOG=1" at half of it */ }
/// ```
package enum ServiceManager {
    /// Sends `state` (newline-separated assignments); false when there is no
    /// service manager to tell or the datagram could not be sent.
    @discardableResult
    package static func notify(_ state: String) -> Bool {
        guard let socketPath = Environment["NOTIFY_SOCKET"], !socketPath.isEmpty else { return false }
        var name = Array(socketPath.utf8)
        if name.first == UInt8(ascii: "@") { name[0] = 0 }  // the abstract namespace
        else if name.first != UInt8(ascii: "/") { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard name.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in name.enumerated() { raw[i] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + name.count + (name.first == 0 ? 0 : 1))
        #if os(Linux)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_UNIX, SOCK_DGRAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { addr in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, addr, length) }
            }
        }
        return sent == bytes.count
    }

    /// How often the service manager expects `WATCHDOG=1` (`$WATCHDOG_USEC`,
    /// for this process when `$WATCHDOG_PID` names another); nil without a watchdog.
    package static var watchdogInterval: Duration? {
        guard let text = Environment["WATCHDOG_USEC"], let micro = Int64(text), micro > 0 else { return nil }
        if let pid = Environment["WATCHDOG_PID"], let n = Int32(pid), n != getpid() { return nil }
        return .microseconds(micro)
    }
}
