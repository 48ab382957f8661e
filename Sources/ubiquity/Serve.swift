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
import HTTPGuards
import Prometheus
import UbiquityPostgres
import UbiquityBackend
import UbiquityServer
import UbiquitySQLite

/// `ubiquity serve`: the sync server.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the sync server (SQLite in --data, or PostgreSQL); prints the URL it listens on.",
        discussion: """
            Plain HTTP is allowed on loopback only: any other address needs --tls-cert and \
            --tls-key, or an explicit --insecure. Requests must carry an account's token \
            (Authorization: Bearer, see `ubiquity account add`); requests with an Origin header \
            (web pages) are refused; only the Host names of the listening address, loopback and \
            --allow-host are answered (bound to 0.0.0.0 or :: without --allow-host, also this \
            machine's host name and its interfaces' addresses).
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

    @Option(name: .customLong("log-level"), help: "trace (each request as it begins, too), debug (every request), info (default: start and stop), notice, warning, error (failed requests), critical.")
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
            complain("\(message)")
            return ExitCode(64)
        }
        var r = Resolved()
        // A number from the command line, else the variable or the file, else the default; in
        // `range` (a huge stop-timeout once crashed the server at SIGTERM), or refused naming its source.
        func number(_ given: Int?, _ name: String, _ fallback: Int, _ range: ClosedRange<Int>, _ unit: String = "") throws -> Int {
            var (value, source) = (fallback, name)
            if let given {
                (value, source) = (given, "--" + name)
            } else {
                do {
                    if let set = try s.int(name) { (value, source) = (set, s.source(name)) }
                } catch { throw usage("\(error)") }
            }
            guard range.contains(value) else {
                throw usage("\(source) must be from \(range.lowerBound) to \(range.upperBound)\(unit), not \(value)")
            }
            return value
        }
        r.port = try number(port, "port", r.port, 0...65535)
        r.maxConnections = try number(maxConnections, "max-connections", r.maxConnections, 2...1_048_576)
        r.bodyTimeout = try number(bodyTimeout, "body-timeout", r.bodyTimeout, 1...86_400, " seconds")
        r.stopTimeout = try number(stopTimeout, "stop-timeout", r.stopTimeout, 1...86_400, " seconds")
        r.bodyRate = try number(bodyRate, "body-rate", r.bodyRate, 1...(1 << 30), " bytes a second")
        r.quotaStores = try number(quotaStores, "quota-stores", r.quotaStores, 0...1_000_000_000)
        r.quotaBytes = try number(quotaBytes, "quota-bytes", r.quotaBytes, 0...(1 << 50))
        do {
            r.host = host ?? s.string("host") ?? r.host
            r.tlsCert = tlsCert ?? s.string("tls-cert")
            r.tlsKey = tlsKey ?? s.string("tls-key")
            r.insecure = try insecure || (s.bool("insecure") ?? false)
            r.allowHosts = allowHosts.isEmpty ? (s.strings("allow-host") ?? []) : allowHosts
        } catch { throw usage("\(error)") }
        // Where a setting came from, for a refusal: the flag, else the variable or the file's key.
        func origin(_ fromFlag: Bool, _ name: String) -> String { fromFlag ? "--" + name : s.source(name) }
        if let text = logFormat ?? s.string("log-format") {
            guard let f = LineLogHandler.Format(rawValue: text) else { throw usage("\(origin(logFormat != nil, "log-format")) is logfmt or json, not \"\(TerminalText.safe(text))\"") }
            r.logFormat = f
        }
        if let text = logLevel ?? s.string("log-level") {
            guard let l = Logger.Level(rawValue: text) else {
                throw usage("\(origin(logLevel != nil, "log-level")) is one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(TerminalText.safe(text))\"")
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
            guard let p = Int(portText), (0...65535).contains(p), !host.isEmpty else { throw usage("\(origin(metrics != nil, "metrics")) is ADDRESS:PORT, for example 127.0.0.1:9470, not \"\(TerminalText.safe(text))\"") }
            guard HostNames.isLoopback(String(host)) else {
                throw usage("\(origin(metrics != nil, "metrics")) listens on loopback only (\(TerminalText.safe(String(host))) is not): put a proxy with TLS and authentication in front for a scraper elsewhere")
            }
            r.metrics = (String(host), p)
        }
        if (r.tlsCert == nil) != (r.tlsKey == nil) { throw usage("tls-cert and tls-key go together") }
        if !HostNames.isLoopback(r.host), r.tlsCert == nil, !r.insecure {
            // Named as the administrator wrote it: flags on the command line, keys in the settings file.
            let needs = host != nil ? "--tls-cert and --tls-key, or --insecure" : "tls-cert and tls-key, or insecure"
            throw usage("\(origin(host != nil, "host")) is \(TerminalText.safe(r.host)): listening beyond loopback needs \(needs) to send tokens in the clear")
        }
        return r
    }

    func run() async throws {
        let settings = try database.settings()
        let o = try resolve(settings)
        // The certificate and key checked before anything opens: a mistake named at start, not a failed handshake later.
        var tls: ServerTLS? = nil
        if let certificate = o.tlsCert, let key = o.tlsKey {
            do { tls = try ServerTLS(certificateFile: certificate, keyFile: key) } catch {
                complain("\(error)")
                throw ExitCode(1)
            }
        }
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: o.logFormat, level: o.logLevel) }
        var registry: PrometheusCollectorRegistry? = nil
        if o.metrics != nil {
            let r = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: r))
            ServerMetrics.recordStart()
            registry = r
        }
        let log = Logger(label: "ubiquity")
        let quota = o.quotaStores == 0 && o.quotaBytes == 0 ? nil
            : AccountQuota(maximumStores: o.quotaStores == 0 ? Int.max : o.quotaStores, maximumBytes: o.quotaBytes == 0 ? Int.max : o.quotaBytes)
        let db = try database.resolved(settings)
        let backend = try await database.open(exclusive: true, quota: quota, resolved: db)
        let host = o.host
        let listening = HostNames.hostHeaderName(ofAddress: host)
        let any = HostNames.isEveryAddress(host)
        let hosts = HostNames.answered(listeningOn: host, allowed: o.allowHosts)
        if any, o.allowHosts.isEmpty {
            log.info("bound to every address without allow-host: answering this machine's own names; list others with allow-host",
                     metadata: ["hosts": .string(hosts.sorted().joined(separator: ","))])
        }
        // Failures go through the logging system: every line in the chosen format (logfmt or JSON).
        let service = UbiquityService(backend: backend, allowedHosts: hosts) { log.error("\($0)") }
        var server = UbiquityHTTPServer(host: host, port: o.port, tls: tls, service: service)
        // Descriptors: the soft limit raised to the hard one; connections capped below it,
        // with a reserve for the database, its pool and the files the server opens.
        let reserve = 64 + (db.postgres == nil ? 0 : db.poolSize)
        let files = Environment.raiseOpenFileLimitToHard() ?? 1_024
        server.maxConnections = max(2, min(o.maxConnections, files - reserve))
        if server.maxConnections < o.maxConnections {
            log.warning("connections capped by the open-file limit", metadata: [
                "max_connections": .stringConvertible(server.maxConnections), "open_file_limit": .stringConvertible(files),
                "reserve": .stringConvertible(reserve)])
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
        let maxConnections = server.maxConnections
        let announce: @Sendable (Int) -> Void = { bound in
            StandardStream.output.write("\(scheme)://\(shown):\(bound)\n")
            // The limits it runs with, as the man page names them: what an operator (and the
            // test that holds the man page's defaults to the code) reads back.
            var facts: Logger.Metadata = [
                "url": .string("\(scheme)://\(shown):\(bound)"), "database": .string(database),
                "version": .string(OpenDefaultsVersion.string),
                "max_connections": .stringConvertible(maxConnections), "body_timeout": .stringConvertible(o.bodyTimeout),
                "body_rate": .stringConvertible(o.bodyRate), "stop_timeout": .stringConvertible(o.stopTimeout),
                "quota_stores": .stringConvertible(o.quotaStores), "quota_bytes": .stringConvertible(o.quotaBytes),
            ]
            if db.postgres != nil { facts["pool_size"] = .stringConvertible(db.poolSize) }
            log.info("serving", metadata: facts)
        }
        do {
            try await server.run(onRunning: announce)
        } catch {
            // Named as the tool names it: the address as given and why, not SwiftNIO's words.
            let reason = (error as? ListenFailure.Failed)?.description ?? ListenFailure.reason(error, host: host, port: o.port)
            guard let reason else { throw error }
            complain(reason)
            try? await backend.close()
            throw ExitCode(1)
        }
        log.info("stopped")
        try? await backend.close()
    }
}
