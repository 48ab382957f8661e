#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// This process and its surroundings, without Foundation: environment
/// variables, user ids, the password database, the host name, the clock.
///
/// ```swift
/// let home = Environment["HOME"] ?? Environment.passwdHome() ?? "/"
/// ```
package enum Environment {
    /// The environment variable `name`, if set.
    package static subscript(name: String) -> String? {
        guard let v = getenv(name) else { return nil }
        return String(cString: v)
    }

    /// This process's id.
    package static var processID: Int32 { getpid() }

    /// The effective user id (whose files this process may write as its own).
    package static var effectiveUserID: UInt32 { UInt32(geteuid()) }

    /// The real user id (whose preferences these are).
    package static var userID: UInt32 { UInt32(getuid()) }

    /// The home folder of the real user in the password database.
    package static func passwdHome() -> String? {
        guard let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir else { return nil }
        return String(cString: dir)
    }

    /// The login name of the real user in the password database.
    package static func passwdName() -> String? {
        guard let pw = getpwuid(getuid()), let name = pw.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    /// The machine's host name, if it has one.
    package static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, 255) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }

    /// The wall clock now, in UTC, as `YYYYMMDDTHHMMSSZ`.
    package static func utcTimestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var tm = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &tm)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(tm.tm_year + 1900)\(two(tm.tm_mon + 1))\(two(tm.tm_mday))T\(two(tm.tm_hour))\(two(tm.tm_min))\(two(tm.tm_sec))Z"
    }

    /// Runs `body` when the process exits normally (`exit`, or returning from `main`).
    package static func atExit(_ body: @escaping @convention(c) () -> Void) { atexit(body) }
}
