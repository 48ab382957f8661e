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

    /// What is wrong with the first command-line argument that is not UTF-8, naming it
    /// (1 is the first after the program's name) and its first bad byte (from 1); nil
    /// when all are text. (`CommandLine.arguments` repairs such bytes into U+FFFD, silently.)
    package static func nonUTF8Argument() -> String? {
        firstNonUTF8Argument().map { "argument \($0.argument) is not UTF-8 text (byte \($0.byte + 1) is not valid UTF-8)" }
    }

    /// The first command-line argument that is not UTF-8, with the offset of its first bad byte.
    static func firstNonUTF8Argument() -> (argument: Int, byte: Int)? {
        for i in 1..<Int(CommandLine.argc) {
            guard let c = CommandLine.unsafeArgv[i] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(c).assumingMemoryBound(to: UInt8.self), count: strlen(c))
            var decoder = UTF8()
            var iterator = bytes.makeIterator()
            var offset = 0
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): offset += UTF8.width(scalar)
                case .emptyInput: break loop
                case .error: return (i, offset)
                }
            }
        }
        return nil
    }

    /// The current working folder, or nil when it cannot be named.
    package static var currentDirectory: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

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
        let t = calendarNow(local: false)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(t.year)\(two(t.month))\(two(t.day))T\(two(t.hour))\(two(t.minute))\(two(t.second))Z"
    }

    /// The wall clock now, in UTC, as ISO 8601 with milliseconds (`2026-11-25T16:55:00.123Z`), for log lines.
    package static func isoTimestamp() -> String {
        let t = calendarNow(local: false)
        func pad(_ v: Int, _ n: Int = 2) -> String { String(repeating: "0", count: max(0, n - String(v).count)) + String(v) }
        return "\(t.year)-\(pad(t.month))-\(pad(t.day))T\(pad(t.hour)):\(pad(t.minute)):\(pad(t.second)).\(pad(t.millisecond, 3))Z"
    }

    /// Runs `body` when the process exits normally (`exit`, or returning from `main`).
    package static func atExit(_ body: @escaping @convention(c) () -> Void) { atexit(body) }

    /// The wall clock now in local time: year, month (1–12), day, hour, minute, second, millisecond.
    package static func localTime() -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) {
        calendarNow(local: true)
    }

    /// The wall clock now, broken down in local time or UTC.
    private static func calendarNow(local: Bool) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var t = tm()
        if local { localtime_r(&seconds, &t) } else { gmtime_r(&seconds, &t) }
        return (Int(t.tm_year) + 1900, Int(t.tm_mon) + 1, Int(t.tm_mday), Int(t.tm_hour), Int(t.tm_min), Int(t.tm_sec),
                Int(now.tv_nsec / 1_000_000))
    }

    /// Lets SIGINT and SIGTERM through again on this thread, even when the
    /// process was started with them blocked.
    package static func unblockInterrupts() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Raises the soft limit of open files to `wanted` (within the hard limit).
    package static func raiseOpenFileLimit(toAtLeast wanted: Int) {
        _ = raiseOpenFileLimit { min(rlim_t(wanted), $0.rlim_max) }
    }

    /// Raises the soft limit of open files to the hard limit and returns the
    /// soft limit now in force (nil when it cannot be read).
    package static func raiseOpenFileLimitToHard() -> Int? {
        raiseOpenFileLimit { $0.rlim_max }
    }

    /// Raises the soft limit of open files to `target(limits)` when higher; the soft limit after.
    private static func raiseOpenFileLimit(_ target: (rlimit) -> rlim_t) -> Int? {
        var limit = rlimit()
        #if os(Linux)
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return nil }
        let wanted = target(limit)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// Blocks this thread for `seconds`.
    package static func sleep(seconds: UInt32) { _ = systemSleep(seconds) }

    /// Ends the process with `status` (``atExit(_:)`` handlers run).
    package static func exit(_ status: Int32) -> Never { systemExit(status) }
}

@inline(__always) private func systemExit(_ status: Int32) -> Never { exit(status) }
@inline(__always) private func systemSleep(_ seconds: UInt32) -> UInt32 { sleep(seconds) }
