@_spi(Engine) import OpenDefaults
import PlatformIO
import SharedTables
import Synchronization
import Spelling

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

    /// Logs a message as macOS does (most begin with a newline), its control characters
    /// escaped: messages quote domains, keys, values and paths as they were given.
    static func log(_ message: String) {
        StandardStream.error.write(prefix() + TerminalText.safe(message, keepingNewlines: true) + "\n")
    }

    /// What the library reported (a corrupt file moved aside, a file that cannot be
    /// read), each said once: printed when the tool exits (``printReports()``),
    /// unless the failure that ends it says the same (``failWriting(_:_:)``).
    private static let reports = Lock<[String]>([])

    /// Routes `store`'s reports here, and prints them once, at exit.
    static func collectReports(of store: DomainStore) {
        store.setErrorHandler { error in
            let line = error.toolLine
            reports.withLock { if !$0.contains(line) { $0.append(line) } }
        }
        Environment.atExit { Messages.printReports() }
    }

    static func printReports() {
        for line in reports.withLock({ r in defer { r = [] }; return r }) { log(line) }
    }

    /// The domain could not be written: one line, with why (a report saying the same is not printed again); exit status 1.
    static func failWriting(_ name: String, _ error: any Error) -> Never {
        let why = (error as? StorageError)?.toolLine ?? "\(error)"
        reports.withLock { $0.removeAll { $0 == why } }
        fail("Could not write domain \(name) (\(why)); exiting")
    }

    /// Logs and exits with status 1.
    static func fail(_ message: String) -> Never {
        log(message)
        Environment.exit(1)
    }

    /// Names the problem in one line, then the help text, both on standard error; exit status 255.
    static func usage(_ problem: String) -> Never {
        StandardStream.error.write("defaults: \(TerminalText.safe(problem, keepingNewlines: true))\n\n" + helpText)
        Environment.exit(255)
    }

    /// `text` with the closest of `candidates` suggested, when one is close.
    static func suggesting(_ text: String, among candidates: [String]) -> String {
        guard let meant = ClosestWord.suggestion(for: text, among: candidates, ignoringCase: true, prefixes: false) else { return "" }
        return " (did you mean \"\(meant)\"?)"
    }
}

extension StorageError {
    /// The error as one line for a process about to exit: what was wrong, without the
    /// library's promise about memory (the process keeps nothing after it exits).
    var toolLine: String {
        switch kind {
        case .unwritable: "cannot write domain \(domain) to \(path): \(reason)"
        default: description
        }
    }
}
