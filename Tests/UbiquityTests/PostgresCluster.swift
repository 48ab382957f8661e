import Foundation
import Testing
import TestSupport

/// A throw-away PostgreSQL server for this test process: `initdb` and
/// `pg_ctl` from Debian's `postgresql` on a temporary folder, run as the
/// `postgres` user when the tests run as root (initdb refuses root),
/// listening on a Unix socket in that folder only, stopped when the process
/// exits. Each test server gets a database of its own.
///
/// Without PostgreSQL the tests of that backend are left out, unless
/// `OPENDEFAULTS_REQUIRE_POSTGRES=1` (set by `.ci/run`) makes that a failure.
final class PostgresCluster: @unchecked Sendable {
    let folder: String
    let bin: String
    /// The account the server runs as (and the database superuser).
    let user: String
    private let lock = NSLock()
    private var databases = 0

    /// The process's cluster, started on first use; nil when PostgreSQL is not installed (or would not start).
    static let shared: PostgresCluster? = {
        do {
            let cluster = try PostgresCluster()
            atexit {
                guard let cluster = PostgresCluster.shared else { return }
                cluster.stop(immediate: true)
                try? FileManager.default.removeItem(atPath: cluster.folder)
            }
            return cluster
        } catch {
            startError = "\(error)"
            return nil
        }
    }()
    nonisolated(unsafe) static var startError = ""

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// The newest `/usr/lib/postgresql/<version>/bin` with initdb.
    static func binaries() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for v in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(v)/bin/initdb") {
            return "\(root)/\(v)/bin"
        }
        return nil
    }

    /// A cluster of its own (for a test that crashes it; the shared one serves tests running meanwhile), stopped and removed with the object.
    static func privateCluster() throws -> PostgresCluster {
        let c = try PostgresCluster()
        c.owned = true
        return c
    }

    /// A primary ready for streaming standbys (``standby(of:)``); ``requireSynchronousStandby()``
    /// then makes its commits wait for a standby's acknowledgement.
    static func replicatingPrimary() throws -> PostgresCluster {
        let c = try PostgresCluster(options: " -c wal_level=replica -c max_wal_senders=10")
        c.owned = true
        return c
    }

    /// Synchronous replication from now on (`synchronous_standby_names = '*'`): a commit is
    /// acknowledged once a standby has it.
    func requireSynchronousStandby() throws {
        let r = try psql("ALTER SYSTEM SET synchronous_standby_names = '*'")
        guard r.status == 0 else { throw Failure(description: "ALTER SYSTEM failed: \(r.stderr)") }
        _ = try psql("SELECT pg_reload_conf()")
    }

    /// A streaming standby of `primary` (`pg_basebackup -R`), started.
    static func standby(of primary: PostgresCluster) throws -> PostgresCluster {
        let c = try PostgresCluster(standbyOf: primary)
        c.owned = true
        return c
    }

    /// Promotes a standby to primary (`pg_ctl promote`, waiting for it).
    func promote() throws {
        let r = try run(bin + "/pg_ctl", ["-D", folder + "/data", "-w", "-t", "30", "promote"])
        guard r.status == 0 else { throw Failure(description: "pg_ctl promote failed: \(r.stdout) \(r.stderr)") }
    }
    private var owned = false
    deinit {
        if owned {
            stop(immediate: true)
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Extra server settings given at each start.
    let options: String

    private init(options: String = "", standbyOf primary: PostgresCluster? = nil) throws {
        guard let bin = Self.binaries() else { throw Failure(description: "no /usr/lib/postgresql/<version>/bin/initdb (install Debian's postgresql)") }
        self.bin = bin
        // A standby, once promoted, has no standby of its own: it must not wait for one.
        self.options = primary == nil ? options : " -c wal_level=replica"
        let root = getuid() == 0
        user = root ? "postgres" : (ProcessInfo.processInfo.environment["USER"] ?? "postgres")
        // A short path: the socket's path must fit in 107 bytes.
        folder = "/tmp/odpg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if root {
            try FileManager.default.setAttributes([.ownerAccountName: "postgres", .posixPermissions: 0o700], ofItemAtPath: folder)
        }
        if let primary {
            let copy = try run(bin + "/pg_basebackup", ["-h", primary.folder, "-U", user, "-D", folder + "/data", "-R", "-X", "stream", "--checkpoint=fast"])
            guard copy.status == 0 else { throw Failure(description: "pg_basebackup failed: \(copy.stderr)") }
        } else {
            let initdb = try run(bin + "/initdb", ["-D", folder + "/data", "-E", "UTF8", "--locale=C", "-A", "trust", "-U", user])
            guard initdb.status == 0 else { throw Failure(description: "initdb failed: \(initdb.stderr)") }
        }
        try start()
    }

    /// Runs a PostgreSQL program as the cluster's user.
    ///
    /// Spawned and reaped directly (posix_spawn, waitpid) with the output in
    /// files: `pg_ctl start` leaves a server behind, which Foundation's
    /// `Process` was seen to wait for forever.
    func run(_ program: String, _ args: [String]) throws -> Outcome {
        let argv = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] + args : [program] + args
        let outPath = folder + "/.out-\(UUID().uuidString.prefix(8))", errPath = outPath + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        let rc = posix_spawn(&pid, argv[0], &actions, nil, cArgs, environ)
        guard rc == 0 else { throw Failure(description: "cannot run \(argv[0]): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: outPath)
        try? FileManager.default.removeItem(atPath: errPath)
        let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Outcome(status: code, stdout: stdout, stderr: stderr)
    }

    /// Whether the server counts statements (`pg_stat_statements`, in Debian's `postgresql`):
    /// tests see which of the sync server's paths ran.
    var countsStatements: Bool {
        FileManager.default.fileExists(atPath: bin + "/../lib/pg_stat_statements.so")
    }

    /// Starts (or restarts) the server: Unix socket in the folder, no TCP.
    ///
    /// `fsync=off`: the tests kill processes (the server, PostgreSQL with
    /// `-m immediate`), never the machine, and WAL written before a commit is
    /// acknowledged survives a killed process in the system's page cache
    /// (`synchronous_commit` stays on). Without it, commits waited seconds for
    /// the disk while other suites flushed files (a CI run saw one take 29 s).
    func start() throws {
        let statements = countsStatements ? " -c shared_preload_libraries=pg_stat_statements" : ""
        let r = try run(bin + "/pg_ctl", ["-D", folder + "/data", "-l", folder + "/log", "-w", "-t", "30",
                                          "-o", "-k \(folder) -c listen_addresses='' -c max_connections=500 -c shared_buffers=128MB -c fsync=off" + statements + options, "start"])
        guard r.status == 0 else {
            let log = (try? String(contentsOfFile: folder + "/log", encoding: .utf8)) ?? ""
            throw Failure(description: "pg_ctl start failed: \(r.stdout) \(r.stderr) \(log.suffix(2000))")
        }
    }

    /// Stops the server; `immediate` is a crash (`pg_ctl -m immediate`: no checkpoint, recovery at the next start).
    func stop(immediate: Bool) {
        _ = try? run(bin + "/pg_ctl", ["-D", folder + "/data", "-m", immediate ? "immediate" : "fast", "-w", "stop"])
    }

    /// Stops every process of the cluster (SIGSTOP: the postmaster and its children), as a
    /// database that stops answering without closing a connection; the processes stopped, for
    /// ``thaw(_:)``.
    func freeze() throws -> [pid_t] {
        let text = try String(contentsOfFile: folder + "/data/postmaster.pid", encoding: .utf8)
        guard let postmaster = text.split(separator: "\n").first.flatMap({ pid_t($0) }) else {
            throw Failure(description: "no postmaster pid in \(folder)/data/postmaster.pid")
        }
        var pids = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // "pid (name) state ppid …": the name may hold spaces and parentheses, so fields count after the last ')'.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { pids.append(pid) }
        }
        for pid in pids { kill(pid, SIGSTOP) }
        return pids
    }

    /// Lets the processes ``freeze()`` stopped go on.
    func thaw(_ pids: [pid_t]) {
        for pid in pids { kill(pid, SIGCONT) }
    }

    /// Runs SQL with psql on `database`; its output (unaligned, tuples only).
    @discardableResult
    func psql(_ sql: String, database: String = "postgres") throws -> Outcome {
        try run(bin + "/psql", ["-h", folder, "-U", user, "-d", database, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    /// A new empty database; its URL for `ubiquity --postgres`.
    func createDatabase() throws -> String {
        let name = lock.withLock { () -> String in databases += 1; return "t\(getpid())_\(databases)" }
        var r = try psql("CREATE DATABASE \(name)")
        for _ in 0..<100 where r.status != 0 && r.stderr.contains("starting up") {
            Thread.sleep(forTimeInterval: 0.1)
            r = try psql("CREATE DATABASE \(name)")
        }
        guard r.status == 0 else { throw Failure(description: "CREATE DATABASE failed: \(r.stderr)") }
        return "postgres:///\(name)?host=\(folder)&user=\(user)"
    }

    /// The database name of a URL made by ``createDatabase()``.
    static func databaseName(_ url: String) -> String {
        String(url.dropFirst("postgres:///".count).prefix { $0 != "?" })
    }
}

extension Requirement {
    /// A throw-away PostgreSQL cluster of Debian's `postgresql` (``PostgresCluster/shared``).
    static let postgres = Requirement("POSTGRES", "needs PostgreSQL's server (as root: apt-get install postgresql)",
                                      installed: { PostgresCluster.binaries() != nil }) { PostgresCluster.shared != nil }
}

/// Where a test server keeps its data.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// The backends this machine can test: SQLite always, PostgreSQL when installed.
    static var available: [Backend] {
        PostgresCluster.shared == nil ? [.sqlite] : [.sqlite, .postgres]
    }
}

@Suite("PostgreSQL for the sync server's tests", .offThePool, .exclusive(.servers), .timeLimit(.minutes(10)))
struct PostgresAvailability {
    @Test("PostgreSQL starts when the run requires it (OPENDEFAULTS_REQUIRE_POSTGRES=1)")
    func availableWhenRequired() throws {
        if Requirement.postgres.isRequired {
            #expect(PostgresCluster.shared != nil, "PostgreSQL is required but did not start: \(PostgresCluster.startError)")
        }
        if let cluster = PostgresCluster.shared {
            let r = try cluster.psql("SELECT 1")
            #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(r.stderr)")
        }
    }
}

@Suite("ubiquity on PostgreSQL: databases it must not use", .offThePool, .exclusive(.servers), .timeLimit(.minutes(10)), .requires(.postgres))
struct PostgresRefusalTests {
    @Test("a database whose schema is newer than the server's is refused, and left as it was")
    func newerSchema() throws {
        let cluster = try #require(PostgresCluster.shared)
        let url = try cluster.createDatabase()
        let name = PostgresCluster.databaseName(url)
        // A server migrates the new database; then a later release's version is recorded.
        let first = try ubiquity(["account", "add", "alice", "--postgres", url], environment: ProcessInfo.processInfo.environment)
        #expect(first.status == 0, "\(first.stderr)")
        let version = try cluster.psql("SELECT max(version) FROM ubiquity_schema", database: name).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let newer = (Int(version) ?? 0) + 1
        try cluster.psql("INSERT INTO ubiquity_schema(version) VALUES (\(newer))", database: name)
        let before = try cluster.psql("SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables WHERE table_schema = 'public'", database: name).stdout
        let r = try ubiquity(["account", "add", "bob", "--postgres", url], environment: ProcessInfo.processInfo.environment)
        #expect(r.status != 0)
        #expect(r.stderr.contains("schema is version \(newer), newer than this server's \(version)"), "\(r.stderr)")
        // Nothing was changed: the same tables, one account, the recorded version kept.
        #expect(try cluster.psql("SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables WHERE table_schema = 'public'", database: name).stdout == before)
        #expect(try cluster.psql("SELECT count(*) FROM accounts", database: name).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        #expect(try cluster.psql("SELECT max(version) FROM ubiquity_schema", database: name).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(newer)")
    }

    @Test("a database not in UTF-8 is refused before anything is created in it")
    func notUTF8() throws {
        let cluster = try #require(PostgresCluster.shared)
        try cluster.psql("CREATE DATABASE latin1_\(getpid()) ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
        let url = "postgres:///latin1_\(getpid())?host=\(cluster.folder)&user=\(cluster.user)"
        let r = try ubiquity(["account", "add", "alice", "--postgres", url], environment: ProcessInfo.processInfo.environment)
        #expect(r.status != 0)
        #expect(r.stderr.contains("encoding is LATIN1") && r.stderr.contains("needs UTF8"), "\(r.stderr)")
        #expect(try cluster.psql("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'", database: "latin1_\(getpid())")
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }
}
