#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PlatformIO

/// How macOS `defaults` reports: messages on standard error through NSLog
/// (`2024-01-02 03:04:05.678 defaults[pid:tid] ` then the text), usage
/// errors as the help text on standard output with exit status 255.
enum Messages {
    /// The NSLog prefix for now, in local time (the thread id is the main thread's, which on Linux is the pid).
    static func prefix() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var t = tm()
        localtime_r(&seconds, &t)
        func pad(_ v: Int32, _ w: Int = 2) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        let millis = Int32(now.tv_nsec / 1_000_000)
        return "\(t.tm_year + 1900)-\(pad(t.tm_mon + 1))-\(pad(t.tm_mday)) \(pad(t.tm_hour)):\(pad(t.tm_min)):\(pad(t.tm_sec)).\(pad(millis, 3)) defaults[\(getpid()):\(getpid())] "
    }

    /// Logs a message as macOS does (most begin with a newline).
    static func log(_ message: String) {
        StandardStream.error.write(prefix() + message + "\n")
    }

    /// Logs and exits with status 1.
    static func fail(_ message: String) -> Never {
        log(message)
        exit(1)
    }

    /// Prints the help text on standard output and exits with status 255.
    static func usage() -> Never {
        StandardStream.output.write(helpText)
        exit(255)
    }
}
