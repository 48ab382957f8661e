import Foundation
import Testing
import TestSupport

/// Every default that `ubiquity(1)` states is the one `ubiquity serve --help` states and the one a
/// server started without options runs with (its start line says what it runs with). A default
/// that moves in the code, the help or the man page alone fails here.
@Suite("ubiquity(1)'s defaults are the help's and the server's", .offThePool, .exclusive(.servers), .timeLimit(.minutes(5)))
struct ServerDefaultsTests {
    /// The serve options whose defaults the man page states, as the start line names them.
    static let serveOptions = ["max-connections", "body-timeout", "body-rate", "stop-timeout", "quota-stores", "quota-bytes"]

    /// `(default N` or `(N by default` on the line after `.Fl -NAME`, for every option the page gives one.
    static func manPageDefaults() throws -> [String: Int] {
        let page = try String(contentsOf: Requirement.repositoryRoot.appendingPathComponent("Packaging/man/ubiquity.1"), encoding: .utf8)
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var found: [String: Int] = [:]
        for (i, line) in lines.enumerated() where line.hasPrefix(".Fl -") && i + 1 < lines.count {
            let name = String(line.dropFirst(".Fl -".count).prefix { $0 != " " })
            let next = lines[i + 1]
            guard !next.hasPrefix(".") else { continue }
            if let n = number(in: next, after: "(default ") ?? number(in: next, after: "(", before: " by default") {
                #expect(found[name] == nil || found[name] == n, "ubiquity(1) states two defaults for --\(name)")
                found[name] = n
            }
        }
        return found
    }

    /// `default N` in each option's entry of `--help` (whitespace folded: the help wraps).
    static func helpDefaults(_ words: [String]) throws -> [String: Int] {
        let help = try ubiquity(words + ["--help"], environment: ProcessInfo.processInfo.environment).stdout
        var found: [String: Int] = [:]
        var name: String?, text = ""
        func finish() {
            let folded = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if let name, let n = number(in: folded, after: "default ") ?? number(in: folded, after: "default: ") ?? number(in: folded, after: "(", before: " by default") { found[name] = n }
        }
        for line in help.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("--"), line.hasPrefix("  --") {
                finish()
                name = String(trimmed.dropFirst(2).prefix { $0 != " " })
                text = String(trimmed)
            } else {
                text += " " + trimmed
            }
        }
        finish()
        return found
    }

    /// The integer right after `prefix` (and before `suffix`, when given) in `text`.
    static func number(in text: String, after prefix: String, before suffix: String? = nil) -> Int? {
        var rest = Substring(text)
        while let range = rest.range(of: prefix) {
            rest = rest[range.upperBound...]
            let digits = rest.prefix { $0.isNumber }
            if let n = Int(digits), suffix.map({ rest.dropFirst(digits.count).hasPrefix($0) }) ?? true { return n }
        }
        return nil
    }

    /// The hard limit of open files that a child of this process gets (`/proc/self/limits`).
    static func hardOpenFileLimit() throws -> Int {
        let limits = try String(contentsOfFile: "/proc/self/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let fields = line.dropFirst("Max open files".count).split(whereSeparator: \.isWhitespace)
        return fields.count > 1 ? Int(fields[1]) ?? Int.max : Int.max    // "unlimited": no cap
    }

    /// The `key=value` pairs of the server's `serving` log line (logfmt).
    static func startLine(_ server: SyncServer) throws -> [String: String] {
        // The server prints its URL before its log line reaches the file: wait for the line.
        func serving() -> Substring? { server.logText.split(separator: "\n").first { $0.split(separator: " ").contains("msg=serving") } }
        _ = eventually(30) { serving() != nil }
        let line = try #require(serving())
        var pairs: [String: String] = [:]
        for field in line.split(separator: " ") {
            let kv = field.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { pairs[String(kv[0])] = kv[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
        return pairs
    }

    @Test("each serve default stated in ubiquity(1) is the help's, and a server without options runs with it")
    func serveDefaults() throws {
        let page = try Self.manPageDefaults()
        let help = try Self.helpDefaults(["serve"])
        let server = try SyncServer(.sqlite)
        let running = try Self.startLine(server)
        // The connection cap sits below the open-file limit; with a low hard limit the server says so and runs with less.
        let hardLimit = try Self.hardOpenFileLimit()
        for name in Self.serveOptions {
            let stated = try #require(page[name], "ubiquity(1) states no default for --\(name)")
            #expect(help[name] == stated, "--\(name): ubiquity(1) says \(stated), the help \(help[name].map(String.init) ?? "nothing")")
            var expected = stated
            if name == "max-connections" { expected = min(stated, hardLimit - 64) }
            let key = name.replacingOccurrences(of: "-", with: "_")
            #expect(running[key] == String(expected), "--\(name): ubiquity(1) says \(stated), the server runs with \(running[key] ?? "nothing")")
        }
    }

    @Test("--pool-size: ubiquity(1), the help and a server on PostgreSQL without the option agree", .requires(.postgres))
    func poolSize() throws {
        let stated = try #require(try Self.manPageDefaults()["pool-size"], "ubiquity(1) states no default for --pool-size")
        #expect(try Self.helpDefaults(["serve"])["pool-size"] == stated)
        let server = try SyncServer(.postgres)
        #expect(try Self.startLine(server)["pool_size"] == String(stated))
    }

    @Test("beyond --max-connections the longest idle connection that never authenticated is closed first, not an older authenticated one")
    func untrustedIdleClosedFirst() throws {
        let cap = 8
        let server = try SyncServer(.sqlite, extraArguments: ["--max-connections", String(cap)])
        let token = try server.addAccount("alice")
        let request = "GET /v1/account HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n"
        // The oldest connection: it authenticated, then sits idle.
        let trusted = try RawConnection(port: server.port)
        trusted.send(request)
        let first = try #require(trusted.head())
        #expect(first.hasPrefix("HTTP/1.1 200"), "\(first)")
        // Connections that never send a request, four more than the cap allows.
        var untrusted: [RawConnection] = []
        for _ in 0..<(cap + 4) { untrusted.append(try RawConnection(port: server.port)) }
        // Room is made by closing idle ones that never authenticated: some of these are closed…
        let closed = eventually(20) { untrusted.filter { Self.isClosed($0) }.count >= 4 }
        #expect(closed, "\(untrusted.filter { Self.isClosed($0) }.count) of the unauthenticated connections were closed")
        // …and the authenticated one, the longest idle of all, still answers.
        trusted.send(request)
        let again = trusted.head()
        #expect(again?.contains("HTTP/1.1 200") == true, "the authenticated connection was closed: \(again ?? "no answer")")
    }

    /// Whether the server closed `connection` (a read sees the end at once).
    static func isClosed(_ connection: RawConnection) -> Bool {
        var byte: UInt8 = 0
        return recv(connection.fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }

    @Test("login's --timeout: ubiquity(1) and the help agree, and a server that never answers is given up on after that long")
    func loginTimeout() throws {
        let stated = try #require(try Self.manPageDefaults()["timeout"], "ubiquity(1) states no default for login's --timeout")
        #expect(try Self.helpDefaults(["login"])["timeout"] == stated)
        // A listener that accepts and never answers.
        let silent = try SilentListener()
        defer { withExtendedLifetime(silent) {} }  // held to the test's end
        let port = silent.port
        let home = try TemporaryFolder("login-timeout")
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home.path
        env["XDG_CONFIG_HOME"] = nil
        let start = ContinuousClock.now
        let r = try ubiquity(["login", "http://127.0.0.1:\(port)", "-"], environment: env, input: "t\n")
        let took = ContinuousClock.now - start
        #expect(r.status != 0 && r.stderr.contains("did not answer within \(stated) seconds"), "\(r.stdout)\(r.stderr)")
        #expect(took >= .seconds(stated) && took < .seconds(stated * 3), "login gave up after \(took), not about \(stated) s: \(r.stderr)")
    }
}
