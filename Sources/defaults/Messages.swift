import PlatformIO

/// How macOS `defaults` reports: messages on standard error through NSLog
/// (`2024-01-02 03:04:05.678 defaults[pid:tid] ` then the text), usage
/// errors as the help text on standard output with exit status 255.
enum Messages {
    /// The NSLog prefix for now, in local time (the thread id is the main thread's, which on Linux is the pid).
    static func prefix() -> String {
        let t = Environment.localTime()
        func pad(_ v: Int, _ w: Int = 2) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        let pid = Environment.processID
        return "\(t.year)-\(pad(t.month))-\(pad(t.day)) \(pad(t.hour)):\(pad(t.minute)):\(pad(t.second)).\(pad(t.millisecond, 3)) defaults[\(pid):\(pid)] "
    }

    /// Logs a message as macOS does (most begin with a newline).
    static func log(_ message: String) {
        StandardStream.error.write(prefix() + message + "\n")
    }

    /// Logs and exits with status 1.
    static func fail(_ message: String) -> Never {
        log(message)
        Environment.exit(1)
    }

    /// Prints the help text on standard output and exits with status 255.
    static func usage() -> Never {
        StandardStream.output.write(helpText)
        Environment.exit(255)
    }
}
