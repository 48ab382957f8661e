import ArgumentParser
import Logging
import Metrics
import OpenDefaults
import OpenDefaultsUbiquity
import PlatformIO
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Prometheus
import UbiquityPostgres
import UbiquityServer

/// Where the server keeps its database unless told otherwise.
func defaultServerData() -> String {
    UserDirectories.data + "/opendefaults/ubiquity-server"
}

/// Where the server's data is: `--data DIR` (SQLite) or `--postgres URL`,
/// from the command line, `UBIQUITY_*` variables or the `--config` file.
struct DatabaseOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A settings file (a property list, such as /etc/opendefaults/ubiquity.plist): its keys are the options' names.",
        discussion: "The command line wins over UBIQUITY_* environment variables, which win over the file."))
    var config: String?

    @Option(help: "The folder of the SQLite database (default: $XDG_DATA_HOME/opendefaults/ubiquity-server).")
    var data: String?

    @Option(help: ArgumentHelp(
        "A PostgreSQL database instead of SQLite: postgres://USER:PASSWORD@HOST:PORT/DB or postgres:///DB?host=/socket/folder.",
        discussion: "Several servers may share one PostgreSQL database. Beyond loopback, TLS is required unless the URL says sslmode=disable."))
    var postgres: String?

    @Option(name: .customLong("pool-size"), help: "Connections to PostgreSQL per server (the listener's not counted; default \(PostgresBackend.defaultPoolSize)).")
    var poolSize: Int?

    /// The database after the command line, the environment and the settings file.
    struct Resolved {
        var data: String?
        var postgres: String?
        var poolSize: Int
    }

    /// The settings file and environment, or a message naming what is wrong and exit status 64.
    func settings() throws -> ServerSettings {
        do { return try ServerSettings(file: config) } catch {
            StandardStream.error.write("ubiquity: \(error)\n")
            throw ExitCode(64)
        }
    }

    /// Merges and checks; a wrong combination is a usage error (64).
    func resolved(_ settings: ServerSettings) throws -> Resolved {
        func usage(_ message: String) -> ExitCode {
            StandardStream.error.write("ubiquity: \(message)\n")
            return ExitCode(64)
        }
        let r: Resolved
        do {
            r = Resolved(data: data ?? (postgres == nil ? settings.string("data") : nil),
                         postgres: postgres ?? (data == nil ? settings.string("postgres") : nil),
                         poolSize: try poolSize ?? settings.int("pool-size") ?? PostgresBackend.defaultPoolSize)
        } catch { throw usage("\(error)") }
        if r.data != nil && r.postgres != nil { throw usage("data and postgres are two different databases: give one") }
        guard (PostgresBackend.writers + 1...1_000).contains(r.poolSize) else {
            throw usage("pool-size must be between \(PostgresBackend.writers + 1) and 1000")
        }
        if let postgres = r.postgres {
            do { _ = try PostgresLocation(postgres) } catch { throw usage(error.description) }
        }
        return r
    }

    /// The SQLite database's folder; a PostgreSQL database is refused (exit 1): pg_dump and pg_restore are its tools.
    func sqliteDirectory(_ r: Resolved) throws -> String {
        if r.postgres != nil {
            StandardStream.error.write("ubiquity: a PostgreSQL database is backed up with pg_dump -Fc and restored with pg_restore, then checked with `ubiquity check`\n")
            throw ExitCode(1)
        }
        return r.data ?? defaultServerData()
    }

    /// Opens the database (a server's SQLite folder `exclusive`ly), or explains on standard error why not and exits 1.
    func open(exclusive: Bool, quota: AccountQuota? = nil, resolved given: Resolved? = nil) async throws -> any UbiquityBackend {
        let r = try given ?? resolved(try settings())
        if let postgres = r.postgres {
            do {
                return try await PostgresBackend.open(try PostgresLocation(postgres), poolSize: r.poolSize, quota: quota)
            } catch {
                StandardStream.error.write("ubiquity: \(error)\n")
                throw ExitCode(1)
            }
        }
        let directory = r.data ?? defaultServerData()
        do { return try await SQLiteBackend.open(directory: directory, exclusive: exclusive, quota: quota) } catch {
            StandardStream.error.write("ubiquity: cannot open the database in \(directory): \(error)\n")
            throw ExitCode(1)
        }
    }
}

/// `ubiquity serve`: the sync server.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the sync server (SQLite in --data, or PostgreSQL); prints the URL it listens on.",
        discussion: """
            Plain HTTP is allowed on loopback only: any other address needs --tls-cert and \
            --tls-key, or an explicit --insecure. Requests must carry an account's token \
            (Authorization: Bearer, see `ubiquity account add`); requests with an Origin header \
            (web pages) are refused; only the Host names of the listening address, loopback and \
            --allow-host are answered.
            """
    )

    @Option(help: "The address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(help: "The port to listen on (0, the default, picks a free one).")
    var port: Int?

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("tls-cert"), help: "A PEM certificate chain: serve HTTPS.")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "The PEM private key of --tls-cert.")
    var tlsKey: String?

    @Flag(help: "Serve plain HTTP beyond loopback (tokens then cross the network readable).")
    var insecure = false

    @Option(name: .customLong("allow-host"), help: "Also answer requests for this Host name (repeatable).")
    var allowHosts: [String] = []

    @Option(name: .customLong("max-connections"), help: ArgumentHelp(
        "The most connections kept open at once (default 10240).",
        discussion: "Beyond it, the longest idle connection that never authenticated is closed first. Kept below the open-file limit (raised to its hard limit at start) with 64 descriptors in reserve."))
    var maxConnections: Int?

    @Option(name: .customLong("body-timeout"), help: "Seconds a request body may take before it must arrive at --body-rate (default 10).")
    var bodyTimeout: Int?

    @Option(name: .customLong("stop-timeout"), help: ArgumentHelp(
        "Seconds SIGTERM waits for requests in flight before cancelling them (default 10).",
        discussion: "Event streams and long polls end at once; commits and uploads in flight get this long. Keep it below systemd's TimeoutStopSec (15 in ubiquity.service)."))
    var stopTimeout: Int?

    @Option(name: .customLong("body-rate"), help: "The slowest a request body may arrive after --body-timeout, in bytes a second (default 16384).")
    var bodyRate: Int?

    @Option(name: .customLong("quota-stores"), help: "The most stores an account may hold (0: no limit; default \(AccountQuota.standard.maximumStores)); a commit that would make one more is refused (422, quota \"stores\").")
    var quotaStores: Int?

    @Option(name: .customLong("log-format"), help: "Log lines as logfmt (default) or json, on standard error.")
    var logFormat: String?

    @Option(name: .customLong("log-level"), help: "trace, debug (every request), info (default: start and stop), notice, warning, error (failed requests), critical.")
    var logLevel: String?

    @Option(help: ArgumentHelp("Serve Prometheus metrics at http://ADDRESS:PORT/metrics (loopback only), for example 127.0.0.1:9470.", valueName: "address:port"))
    var metrics: String?

    @Option(name: .customLong("quota-bytes"), help: "The most bytes an account's stores may hold together (0: no limit; default \(AccountQuota.standard.maximumBytes)); a commit that would pass it is refused (422, quota \"bytes\").")
    var quotaBytes: Int?

    /// The settings after the command line, the environment and the file.
    struct Resolved {
        var host = "127.0.0.1", port = 0, tlsCert: String? = nil, tlsKey: String? = nil, insecure = false, allowHosts: [String] = []
        var maxConnections = 10_240, bodyTimeout = 10, bodyRate = 16_384, stopTimeout = 10
        var quotaStores = AccountQuota.standard.maximumStores, quotaBytes = AccountQuota.standard.maximumBytes
        var logFormat = LineLogHandler.Format.logfmt, logLevel = Logger.Level.info
        var metrics: (host: String, port: Int)? = nil
    }

    /// Merges the three sources and checks the result; a problem is a usage error (64) naming where it came from.
    func resolve(_ s: ServerSettings) throws -> Resolved {
        func usage(_ message: String) -> ExitCode {
            StandardStream.error.write("ubiquity: \(message)\n")
            return ExitCode(64)
        }
        var r = Resolved()
        do {
            r.host = host ?? s.string("host") ?? r.host
            r.port = try port ?? s.int("port") ?? r.port
            r.tlsCert = tlsCert ?? s.string("tls-cert")
            r.tlsKey = tlsKey ?? s.string("tls-key")
            r.insecure = try insecure || (s.bool("insecure") ?? false)
            r.allowHosts = allowHosts.isEmpty ? (s.strings("allow-host") ?? []) : allowHosts
            r.maxConnections = try maxConnections ?? s.int("max-connections") ?? r.maxConnections
            r.bodyTimeout = try bodyTimeout ?? s.int("body-timeout") ?? r.bodyTimeout
            r.bodyRate = try bodyRate ?? s.int("body-rate") ?? r.bodyRate
            r.stopTimeout = try stopTimeout ?? s.int("stop-timeout") ?? r.stopTimeout
            r.quotaStores = try quotaStores ?? s.int("quota-stores") ?? r.quotaStores
            r.quotaBytes = try quotaBytes ?? s.int("quota-bytes") ?? r.quotaBytes
        } catch { throw usage("\(error)") }
        if let text = logFormat ?? s.string("log-format") {
            guard let f = LineLogHandler.Format(rawValue: text) else { throw usage("log-format is logfmt or json, not \"\(TerminalText.safe(text))\"") }
            r.logFormat = f
        }
        if let text = logLevel ?? s.string("log-level") {
            guard let l = Logger.Level(rawValue: text) else {
                throw usage("log-level is one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(TerminalText.safe(text))\"")
            }
            r.logLevel = l
        }
        if let text = metrics ?? s.string("metrics") {
            let host: Substring, portText: Substring
            if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
                host = text[text.index(after: text.startIndex)..<close]
                portText = text[text.index(after: close)...].drop { $0 == ":" }
            } else {
                host = text.split(separator: ":", maxSplits: 1).first ?? ""
                portText = text.split(separator: ":", maxSplits: 1).dropFirst().first ?? ""
            }
            guard let p = Int(portText), (0...65535).contains(p), !host.isEmpty else { throw usage("metrics is ADDRESS:PORT, for example 127.0.0.1:9470") }
            guard HostNames.isLoopback(String(host)) else {
                throw usage("metrics listens on loopback only (\(host) is not): put a proxy with TLS and authentication in front for a scraper elsewhere")
            }
            r.metrics = (String(host), p)
        }
        guard (0...65535).contains(r.port) else { throw usage("port must be between 0 and 65535") }
        guard r.maxConnections >= 2 else { throw usage("max-connections must be at least 2") }
        guard r.bodyTimeout >= 1 else { throw usage("body-timeout must be at least 1 second") }
        guard r.stopTimeout >= 1 else { throw usage("stop-timeout must be at least 1 second") }
        guard r.bodyRate >= 1 else { throw usage("body-rate must be at least 1 byte a second") }
        guard r.quotaStores >= 0, r.quotaBytes >= 0 else { throw usage("quota-stores and quota-bytes are 0 (no limit) or more") }
        if (r.tlsCert == nil) != (r.tlsKey == nil) { throw usage("tls-cert and tls-key go together") }
        if !HostNames.isLoopback(r.host), r.tlsCert == nil, !r.insecure {
            throw usage("listening on \(r.host) (beyond loopback) needs --tls-cert and --tls-key, or --insecure to send tokens in the clear")
        }
        return r
    }

    func run() async throws {
        let settings = try database.settings()
        let o = try resolve(settings)
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: o.logFormat, level: o.logLevel) }
        var registry: PrometheusCollectorRegistry? = nil
        if o.metrics != nil {
            let r = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: r))
            ServerMetrics.recordBuildInfo()
            registry = r
        }
        let log = Logger(label: "ubiquity")
        let quota = o.quotaStores == 0 && o.quotaBytes == 0 ? nil
            : AccountQuota(maximumStores: o.quotaStores == 0 ? Int.max : o.quotaStores, maximumBytes: o.quotaBytes == 0 ? Int.max : o.quotaBytes)
        let db = try database.resolved(settings)
        let backend = try await database.open(exclusive: true, quota: quota, resolved: db)
        let host = o.host
        let listening = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        var hosts: Set<String> = ["127.0.0.1", "localhost", "[::1]"]
        hosts.insert(listening.lowercased())
        for h in o.allowHosts { hosts.insert(h.lowercased()) }
        let any = host == "0.0.0.0" || host == "::"
        // Bound to every address, the Host names are the operator's to list; without any, all are answered.
        let allowed: Set<String>? = any && o.allowHosts.isEmpty ? nil : hosts
        let service = UbiquityService(backend: backend, allowedHosts: allowed)
        var server = UbiquityHTTPServer(host: host, port: o.port, tls: o.tlsCert.map { ($0, o.tlsKey!) }, service: service)
        // Descriptors: the soft limit raised to the hard one; connections capped below it,
        // with a reserve for the database, its pool and the files the server opens.
        let reserve = 64 + (db.postgres == nil ? 0 : db.poolSize)
        let files = Environment.raiseOpenFileLimitToHard() ?? 1_024
        server.maxConnections = max(2, min(o.maxConnections, files - reserve))
        if server.maxConnections < o.maxConnections {
            StandardStream.error.write("ubiquity: at most \(server.maxConnections) connections (the open-file limit is \(files), \(reserve) kept in reserve)\n")
        }
        server.bodyGrace = .seconds(o.bodyTimeout)
        server.bodyMinimumRate = o.bodyRate
        server.stopTimeout = .seconds(o.stopTimeout)
        let scheme = o.tlsCert == nil ? "http" : "https"
        let shown = any ? "127.0.0.1" : listening
        if let registry, let m = o.metrics {
            server.companions.append(MetricsListener(host: m.host, port: m.port, registry: registry) { bound in
                log.info("metrics listening", metadata: ["url": .string("http://\(m.host):\(bound)/metrics")])
            })
        }
        let database = db.postgres == nil ? "sqlite" : "postgresql"
        try await server.run { bound in
            StandardStream.output.write("\(scheme)://\(shown):\(bound)\n")
            log.info("serving", metadata: ["url": .string("\(scheme)://\(shown):\(bound)"), "database": .string(database),
                                          "version": .string(OpenDefaultsVersion.string)])
        }
        log.info("stopped")
        try? await backend.close()
    }
}

/// `ubiquity account …`: accounts and their named tokens, on the database
/// directly (a running server hears of a revocation within a second).
struct Account: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the server's accounts and their tokens (one named token per machine).",
        discussion: """
            Tokens are shown once, when made; the server keeps only their SHA-256. Revoking or \
            rotating a token, or deleting its account, is seen by every running server within a \
            second: requests with it are refused (401) and its open event streams end.
            """,
        subcommands: [Add.self, List.self, Tokens.self, Issue.self, Rotate.self, Revoke.self, Delete.self]
    )

    /// Names of accounts and tokens: 1 to 64 letters, digits, '.', '-', '_', '@'.
    static func checkName(_ name: String, what: String) throws {
        guard !name.isEmpty, name.utf8.count <= 64,
            name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-@".unicodeScalars.contains($0)) })
        else { throw ValidationError("the \(what) must be 1 to 64 letters, digits, '.', '-', '_' or '@', not \"\(TerminalText.safe(name))\"") }
    }

    /// Runs `body` on the database, closing it after; a backend's refusal is printed and exits 1.
    /// Makes a token, has `record` keep its hash, and prints `heading` and the
    /// token alone on the last line (it is shown only now).
    static func withNewToken(_ database: DatabaseOptions, heading: String,
                             _ record: (any UbiquityBackend, [UInt8]) async throws -> Void) async throws {
        let token = UbiquityService.newToken()
        try await onDatabase(database) { backend in
            try await record(backend, UbiquityService.hash(token: token))
            StandardStream.output.write("\(heading)\n\(token)\n")
        }
    }

    /// Seconds since 1970 as `defaults read` prints a date (`2026-11-25 13:43:04 +0000`).
    static func time(_ seconds: Int64) -> String {
        PropertyList.descriptionString(for: Date(timeIntervalSince1970: Double(seconds)))
    }

    static func onDatabase(_ database: DatabaseOptions, _ body: (any UbiquityBackend) async throws -> Void) async throws {
        let backend = try await database.open(exclusive: false)
        do {
            try await body(backend)
            try? await backend.close()
        } catch {
            try? await backend.close()
            StandardStream.error.write("ubiquity: \(error)\n")
            throw ExitCode(1)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account; prints its first token (alone on the last line, shown only now: the server keeps its hash)."
        )

        @Argument(help: "The account's name (1 to 64 letters, digits, '.', '-', '_', '@').")
        var name: String

        @Option(name: .customLong("token-name"), help: "The first token's name (a machine's, for instance).")
        var tokenName = "default"

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            try Account.checkName(name, what: "account name")
            try Account.checkName(tokenName, what: "token name")
        }

        func run() async throws {
            let token = UbiquityService.newToken()
            try await Account.onDatabase(database) { backend in
                let info = try await backend.createAccount(name: name, tokenName: tokenName, tokenHash: UbiquityService.hash(token: token))
                StandardStream.output.write("Account \(info.name) (\(info.id)) created; its token \"\(tokenName)\":\n\(token)\n")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the accounts: name, id, tokens, stores, bytes stored.")

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await Account.onDatabase(database) { backend in
                var text = "NAME\tID\tTOKENS\tSTORES\tBYTES\n"
                for a in try await backend.accounts() { text += "\(a.name)\t\(a.id)\t\(a.tokens)\t\(a.stores)\t\(a.bytes)\n" }
                StandardStream.output.write(text)
            }
        }
    }

    struct Tokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an account's tokens: name, when made, when last used (UTC; recorded at most once a minute).")

        @Argument(help: "The account's name.")
        var name: String

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await Account.onDatabase(database) { backend in
                var text = "TOKEN\tCREATED\tLAST USED\n"
                for t in try await backend.tokens(account: name) {
                    text += "\(t.name)\t\(Account.time(t.created))\t\(t.lastUsed.map(Account.time) ?? "never")\n"
                }
                StandardStream.output.write(text)
            }
        }
    }

    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make another named token for an account (another machine's); prints it alone on the last line.")

        @Argument(help: "The account's name.")
        var name: String

        @Option(name: .customLong("token-name"), help: "The new token's name (unique within the account).")
        var tokenName: String

        @OptionGroup var database: DatabaseOptions

        func validate() throws { try Account.checkName(tokenName, what: "token name") }

        func run() async throws {
            try await Account.withNewToken(database, heading: "Token \"\(tokenName)\" of \(name):") { backend, hash in
                try await backend.addToken(account: name, tokenName: tokenName, tokenHash: hash)
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replace a named token; the old one is refused from now on. Prints the new one alone on the last line.")

        @Argument(help: "The account's name.")
        var name: String

        @Option(name: .customLong("token-name"), help: "The token to replace.")
        var tokenName = "default"

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await Account.withNewToken(database, heading: "Token \"\(tokenName)\" of \(name) replaced; the new one:") { backend, hash in
                try await backend.replaceToken(account: name, tokenName: tokenName, tokenHash: hash)
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a named token, or every token of the account with --all.")

        @Argument(help: "The account's name.")
        var name: String

        @Option(name: .customLong("token-name"), help: "The token to revoke.")
        var tokenName: String?

        @Flag(help: "Revoke every token of the account.")
        var all = false

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            if (tokenName == nil) == !all { throw ValidationError("give --token-name NAME or --all (one of them)") }
        }

        func run() async throws {
            try await Account.onDatabase(database) { backend in
                let n = try await backend.revokeTokens(account: name, tokenName: tokenName)
                StandardStream.output.write(n == 1 ? "1 token of \(name) revoked\n" : "\(n) tokens of \(name) revoked\n")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an account with its tokens and every store's data, on every server.")

        @Argument(help: "The account's name.")
        var name: String

        @Flag(help: "Confirm: the account's data cannot be recovered.")
        var yes = false

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard yes else { throw ValidationError("deleting \(name) removes every store of it for good: add --yes to confirm") }
        }

        func run() async throws {
            try await Account.onDatabase(database) { backend in
                try await backend.deleteAccount(name: name)
                StandardStream.output.write("Account \(name) deleted\n")
            }
        }
    }
}

/// `ubiquity check`: the database's invariants.
struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the server's database: every store's revisions without gaps, counts and sizes as recorded."
    )

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let backend = try await database.open(exclusive: false)
        let problems = try await backend.check()
        try? await backend.close()
        for p in problems { StandardStream.error.write("ubiquity: \(p)\n") }
        if !problems.isEmpty { throw ExitCode(1) }
        StandardStream.output.write("ok\n")
    }
}

/// `ubiquity backup`: a consistent copy of the SQLite database while the server runs.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the server's SQLite database to a file while it serves and writes (one consistent moment).",
        discussion: "The copy is checked and made 0600; an existing file is never replaced. For PostgreSQL, use pg_dump (see ubiquity(1))."
    )

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The backup file to make (it must not exist).")
    var destination: String

    func run() async throws {
        let directory = try database.sqliteDirectory(try database.resolved(try database.settings()))
        do {
            let s = try await SQLiteBackup.backup(directory: directory, to: destination)
            StandardStream.output.write("Backed up \(s) to \(destination) (\(s.bytes) bytes)\n")
        } catch {
            StandardStream.error.write("ubiquity: \(error)\n")
            throw ExitCode(1)
        }
    }
}

/// `ubiquity restore`: a backup put in place of the database of a stopped server.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a backup in place of the server's SQLite database (the server stopped); the replaced database is kept aside.",
        discussion: "The backup is checked first; afterwards the restored database is checked as `ubiquity check` does."
    )

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The backup file (made by `ubiquity backup`).")
    var backup: String

    func run() async throws {
        let resolved = try database.resolved(try database.settings())
        let directory = try database.sqliteDirectory(resolved)
        do {
            let (s, aside) = try await SQLiteBackup.restore(from: backup, into: directory)
            StandardStream.output.write("Restored \(s) into \(directory)\n")
            if let aside { StandardStream.output.write("The database it replaced is kept as \(aside)\n") }
        } catch {
            StandardStream.error.write("ubiquity: \(error)\n")
            throw ExitCode(1)
        }
        let backend = try await database.open(exclusive: false, resolved: resolved)
        let problems = try await backend.check()
        try? await backend.close()
        for p in problems { StandardStream.error.write("ubiquity: \(p)\n") }
        if !problems.isEmpty { throw ExitCode(1) }
        StandardStream.output.write("check: ok\n")
    }
}
