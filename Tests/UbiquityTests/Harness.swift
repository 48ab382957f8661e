import Foundation
import TestSupport
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing

/// The built products (`ubiquity`).
let products = Products.directory

/// A throw-away folder, removed with the object.
final class TemporaryFolder: @unchecked Sendable {
    let url: URL
    init(_ name: String) throws {
        url = try ScratchFolders.make("ubiquity-\(name)")
    }
    deinit { ScratchFolders.remove(url) }
    var path: String { url.path }
}

/// What a finished command printed.
struct Outcome {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `ubiquity` with `args` in `environment`.
@discardableResult
func ubiquity(_ args: [String], environment: [String: String], input: String? = nil) throws -> Outcome {
    let r = try runProcess(products.appendingPathComponent("ubiquity").path, args, environment: environment, input: input.map { Data($0.utf8) })
    return Outcome(status: r.status, stdout: r.stdout, stderr: r.stderr)
}

/// Polls until `done` holds or `seconds` pass, on the calling thread; returns whether it held.
/// (A synchronous test uses it where its steps must not wait for a busy cooperative pool.)
func eventually(_ seconds: Double = 5, _ done: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    repeat {
        if try done() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    } while Date() < deadline
    return try done()
}

/// Polls without blocking a thread of the cooperative pool (the stores under test run there).
/// The default wait is generous: it ends as soon as `done` holds, and CI's full run shares
/// two cores between every suite.
func settle(_ seconds: Double = 15, _ done: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    repeat {
        if try done() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    } while Date() < deadline
    return try done()
}

/// Sleeps without blocking a thread of the cooperative pool.
func pause(_ seconds: Double) async {
    try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
}

/// A server on `backend` with one account, alice, and `clients` transports of hers (each with
/// its own connections).
func serving(_ backend: Backend, clients: Int = 1) throws -> (SyncServer, [HTTPUbiquityTransport]) {
    let server = try SyncServer(backend)
    let token = try server.addAccount("alice")
    return (server, (0..<clients).map { _ in HTTPUbiquityTransport(account: server.account(token: token)) })
}

/// A real `ubiquity serve` on loopback, with its database in a temporary
/// folder (SQLite) or in a new database of the test process's PostgreSQL.
final class SyncServer: @unchecked Sendable {
    let folder: TemporaryFolder
    let backend: Backend
    var data: String { folder.path + "/data" }
    /// The PostgreSQL database's URL (postgres backend only).
    let postgres: String?
    private(set) var process: Process?
    private(set) var url = ""
    private(set) var port = 0
    /// The running (or last) server's standard error: its log lines.
    private(set) var errorLog = ""
    var logText: String { (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "" }
    let extraArguments: [String]
    /// A command the server is started through (`prlimit --nofile=…`), or none.
    let launcher: [String]
    /// Variables added to the server's environment.
    let extraEnvironment: [String: String]

    /// `cluster`: the PostgreSQL server (default: the test process's shared one).
    init(_ backend: Backend = .sqlite, extraArguments: [String] = [], launcher: [String] = [], cluster: PostgresCluster? = nil,
         environment extra: [String: String] = [:]) throws {
        folder = try TemporaryFolder("server")
        self.backend = backend
        self.extraArguments = extraArguments
        self.launcher = launcher
        self.extraEnvironment = extra
        switch backend {
        case .sqlite: postgres = nil
        case .postgres:
            guard let cluster = cluster ?? PostgresCluster.shared else { throw ServerFailed(message: "PostgreSQL is not available: \(PostgresCluster.startError)") }
            postgres = try cluster.createDatabase()
        }
        try start(port: 0)
    }

    /// A server on the PostgreSQL database at `postgresURL` (several hosts, for a failover).
    init(postgresURL: String, extraArguments: [String] = []) throws {
        folder = try TemporaryFolder("server")
        backend = .postgres
        postgres = postgresURL
        self.extraArguments = extraArguments
        launcher = []
        extraEnvironment = [:]
        try start(port: 0)
    }

    /// Another server over the same PostgreSQL database (another instance behind the same load balancer).
    init(sharing other: SyncServer) throws {
        folder = try TemporaryFolder("server")
        backend = other.backend
        postgres = other.postgres
        extraArguments = other.extraArguments
        launcher = other.launcher
        extraEnvironment = other.extraEnvironment
        try start(port: 0)
    }

    /// `--data DIR` or `--postgres URL`.
    var databaseArguments: [String] {
        if let postgres { return ["--postgres", postgres] }
        return ["--data", data]
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = folder.path
        env["XDG_CONFIG_HOME"] = nil
        env["XDG_DATA_HOME"] = nil
        env.merge(extraEnvironment) { _, new in new }
        return env
    }

    /// Starts the server (again, on the same port when `port` is not 0).
    func start(port: Int) throws {
        let log = folder.url.appendingPathComponent("serve-\(UUID().uuidString.prefix(6)).out")
        let errors = folder.url.appendingPathComponent("serve-\(UUID().uuidString.prefix(6)).err")
        let command = launcher + [products.appendingPathComponent("ubiquity").path, "serve", "--port", String(port)]
            + databaseArguments + extraArguments
        let p = try startProcess(command[0], Array(command.dropFirst()), environment: environment,
                                 output: .file(log), errors: .file(errors)).process
        errorLog = errors.path
        process = p
        var line = ""
        let ok = eventually(20) {
            line = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return line.hasSuffix("\n") || !p.isRunning
        }
        guard ok, p.isRunning else { throw ServerFailed(message: "ubiquity serve did not start: \(line)") }
        url = line.trimmingCharacters(in: .whitespacesAndNewlines)
        self.port = Int(url.split(separator: ":").last ?? "0") ?? 0
        // On PostgreSQL the server is ready once it listens for other servers' commits
        // (`/readyz`); a stream opened before then reads its store again when the listening
        // starts, and sends what was committed meanwhile as one event.
        if backend == .postgres, FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") {
            var last = ""
            let ready = eventually(30) {
                let r = try? rawRequest(self, path: "/readyz", insecureTLS: true)
                last = r.map { "\($0.status) \($0.body)" } ?? "no answer"
                return r?.status == 200
            }
            guard ready else { throw ServerFailed(message: "ubiquity serve was not ready within 30 s: \(last)") }
        }
    }

    struct ServerFailed: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Creates an account; its token.
    func addAccount(_ name: String) throws -> String {
        let r = try ubiquity(["account", "add", name] + databaseArguments, environment: environment)
        #expect(r.status == 0, "account add: \(r.stderr)")
        return r.stdout.split(separator: "\n").last.map(String.init) ?? ""
    }

    /// `kill -9`.
    func kill() {
        guard let p = process else { return }
        Foundation.kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        process = nil
    }

    /// SIGTERM, then waits.
    func stop() {
        guard let p = process else { return }
        p.terminate()
        p.waitUntilExit()
        process = nil
    }

    /// Restarts on the same port after a stop or a kill.
    func restart() throws {
        var lastError: (any Error)? = nil
        for _ in 0..<20 {
            do { try start(port: port); return } catch { lastError = error; Thread.sleep(forTimeInterval: 0.1) }
        }
        throw lastError!
    }

    /// `ubiquity check` on the database.
    func check() throws -> Outcome { try ubiquity(["check"] + databaseArguments, environment: environment) }

    deinit { kill() }

    /// An account on this server as a client library sees it.
    func account(token: String, name: String = "", identifier: String = "test") -> UbiquityAccount {
        UbiquityAccount(server: url, token: token, name: name, identifier: identifier)
    }
}

/// A machine: its own home (config and data), its own `ubiquity` commands.
final class Machine: @unchecked Sendable {
    let home: TemporaryFolder
    init(_ name: String) throws { home = try TemporaryFolder(name) }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home.path
        env["XDG_CONFIG_HOME"] = nil
        env["XDG_DATA_HOME"] = nil
        return env
    }

    @discardableResult
    func run(_ args: String...) throws -> Outcome { try ubiquity(args, environment: environment) }

    @discardableResult
    func run(_ args: [String]) throws -> Outcome { try ubiquity(args, environment: environment) }

    func login(_ server: SyncServer, token: String) throws {
        let r = try ubiquity(["login", server.url], environment: environment, input: token + "\n")
        #expect(r.status == 0, "login: \(r.stderr)")
    }

    /// Starts `ubiquity watch --store ID`.
    func watch(_ store: String) throws -> Watcher { try Watcher(machine: self, store: store) }
}

/// A running `ubiquity watch`, its lines collected.
final class Watcher: @unchecked Sendable {
    let process: Process
    /// Where the watch says `READY=1`: once it is watching (the store open, the login followed).
    let notify: NotifySocket
    let output: URL
    let errors: URL

    init(machine: Machine, store: String) throws {
        output = machine.home.url.appendingPathComponent("watch-\(UUID().uuidString.prefix(6)).out")
        errors = output.deletingPathExtension().appendingPathExtension("err")
        notify = try NotifySocket(in: machine.home.path)
        process = try startProcess(products.appendingPathComponent("ubiquity").path, ["watch", "--store", store],
                                   environment: machine.environment.merging(notify.environment) { $1 },
                                   output: .file(output), errors: .file(errors)).process
        guard notify.wait(timeout: .seconds(30), { $0.hasPrefix("READY=1") }) else {
            process.terminate()
            throw SyncServer.ServerFailed(message: "ubiquity watch did not say READY=1 within 30 s: \(errorLines)")
        }
    }

    /// What it printed on standard error, by line.
    var errorLines: [String] {
        ((try? String(contentsOf: errors, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    var lines: [String] {
        ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits for a line that `matches`; the lines so far.
    @discardableResult
    func waitFor(_ seconds: Double = 5, _ matches: (String) -> Bool) -> Bool {
        eventually(seconds) { lines.contains(where: matches) }
    }

    /// Waits (without blocking a thread) for a line that `matches`.
    func settleFor(_ seconds: Double = 15, _ matches: (String) -> Bool) async -> Bool {
        await settle(seconds) { lines.contains(where: matches) }
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }
}

/// A store in this process standing for a machine: its own folder, a fixed account, HTTP.
func apiStore(_ id: String, server: SyncServer, token: String, folder: TemporaryFolder, watches: Bool = true) -> UbiquitousKeyValueStore {
    UbiquitousKeyValueStore(storeIdentifier: id, configuration: .init(
        dataDirectory: folder.path, transport: { HTTPUbiquityTransport(account: $0) },
        account: server.account(token: token), watches: watches))
}

/// Collects a store's external changes.
final class ChangeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var changes: [UbiquityExternalChange] = []
    private var task: Task<Void, Never>?

    init(_ store: UbiquitousKeyValueStore) {
        let stream = store.externalChanges()
        task = Task { [weak self] in
            for await change in stream { self?.append(change) }
        }
    }
    private func append(_ c: UbiquityExternalChange) { lock.withLock { changes.append(c) } }
    var all: [UbiquityExternalChange] { lock.withLock { changes } }
    deinit { task?.cancel() }
}

/// Writer `w`: commits increasing integers to its own key `writer<w>` until `stop`, moving to the
/// next server when one fails (as clients behind a load balancer do), and records what was acknowledged.
///
/// A commit that failed (no answer) may still have landed: the writer's next
/// commit then conflicts, and carries on from the server's revision. That is
/// accepted only when the value found is one of this writer's unanswered
/// attempts; anything else is recorded in `acknowledged.anomalies`, and every
/// failure in `acknowledged.failures` (and `refusals`, with its time). A 503
/// that says the commit was not applied is not an unanswered attempt: finding
/// its value on the server later is an anomaly.
func writeOwnKey(_ w: Int, of store: String, through servers: [SyncServer], token: String, until stop: Flag, acknowledged: Acknowledged,
             refusals: Refusals? = nil) async {
    var instance = w % servers.count
    var transport = HTTPUbiquityTransport(account: servers[instance].account(token: token))
    var base: Int64 = 0
    var n = 0
    /// The values of attempts that got no answer since the last one that did.
    var unanswered: Set<Int> = []
    while !stop.isSet {
        n += 1
        let request = UbiquityCommitRequest(changes: [UbiquityWireChange(
            key: "writer\(w)", base: base, value: UbiquityWireValue.encode(.integer(.init(Int64(n)))))])
        do {
            refusals?.started(w)
            let r = try await transport.commit(store: store, request)
            refusals?.finished(w)
            guard let result = r.results.first else {
                acknowledged.anomaly("writer\(w): a commit answered without a result")
                continue
            }
            if result.status == .applied {
                base = result.entry.revision
                acknowledged.record(writer: w, value: n)
            } else {
                // A conflict: only an unanswered attempt of this writer may have moved the key.
                let found = result.entry.value.flatMap { UbiquityWireValue.decode($0)?.value }
                guard case .integer(let stored)? = found, let m = stored.int64Value.map(Int.init), unanswered.contains(m) else {
                    acknowledged.anomaly("writer\(w): commit \(n) on base \(base) conflicted with \(String(describing: found)), not an unanswered attempt (\(unanswered.sorted()))")
                    base = result.entry.revision
                    unanswered = []
                    continue
                }
                base = result.entry.revision
                acknowledged.landed(writer: w, value: m)
            }
            unanswered = []
        } catch {
            if case .notApplied = error {
                // A 503 whose code promises the commit was not applied: it must never appear (proposal 0012).
                acknowledged.refused(writer: w, value: n)
            } else {
                unanswered.insert(n)
            }
            acknowledged.failed()
            refusals?.finished(w)
            refusals?.record("writer\(w) via \(instance): \(error)")
            // Move on to the next instance; a short pause as a client's backoff.
            instance = (instance + 1) % servers.count
            transport = HTTPUbiquityTransport(account: servers[instance].account(token: token))
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
