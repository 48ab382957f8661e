import PlatformIO

/// How macOS `defaults` reports: messages on standard error through NSLog
/// (`2024-01-02 03:04:05.678 defaults[pid:tid] ` then the text), usage
/// errors with exit status 255. Unlike macOS, a usage error first names what
/// was wrong in one line, and the help follows on standard error (macOS
/// prints only the help, on standard output).
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

    /// Names the problem in one line, then the help text, both on standard error; exit status 255.
    static func usage(_ problem: String) -> Never {
        StandardStream.error.write("defaults: \(problem)\n\n" + helpText)
        Environment.exit(255)
    }

    /// `text` with the closest of `candidates` suggested, when one is close.
    static func suggesting(_ text: String, among candidates: [String]) -> String {
        let lowered = text.lowercased()
        let scored = candidates.map { ($0, editDistance(lowered, $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(1, min(2, text.count / 3)) else { return "" }
        return " (did you mean \"\(best.0)\"?)"
    }

    /// Levenshtein distance over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, cb) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
