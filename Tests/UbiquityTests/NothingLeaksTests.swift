import Foundation
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing
import TestSupport

/// A raw TCP connection to a server on loopback: a request sent in pieces, its answer read.
final class RawConnection {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends `bytes` as far as the server takes them; how many were sent (fewer when it closed).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Int {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            sent += n
        }
        return sent
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// The answer's head (status line and fields), read until it ends (nil when the connection failed first).
    func head() -> String? {
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: answer, as: UTF8.self).contains("\r\n\r\n") {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { return nil }
            answer += buffer[0..<n]
        }
        let text = String(decoding: answer, as: UTF8.self)
        return String(text[..<text.range(of: "\r\n\r\n")!.lowerBound])
    }

    /// A commit's head for `body` (sent separately).
    static func commitHead(store: String, token: String, length: Int) -> String {
        "POST /v1/stores/\(store)/commit HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
    }

    /// A commit's body: one key set to a string of `size` characters.
    static func commitBody(key: String, size: Int) -> [UInt8] {
        let value = UbiquityWireValue.encode(.string(String(repeating: "x", count: size)))
        return Array(#"{"changes":[{"key":"\#(key)","base":0,"value":"\#(value)"}]}"#.utf8)
    }
}

/// Issue 37: what surrounds the sync server — backups, restores, revocation, quotas, metrics,
/// settings files, profiles — under attack. Each test failed before its fix.
@Suite("nothing leaks and nothing lingers", .offThePool, .exclusive(.servers), .serialized, .timeLimit(.minutes(10)))
struct NothingLeaksTests {
    @Test("a backup never follows a link planted for its temporary file, and leaves nothing but the backup (0600)",
          .requires(.root))
    func backupTemporaryFile() throws {
        let server = try SyncServer(.sqlite)
        _ = try server.addAccount("alice")
        // A shared folder (sticky, as /tmp) and a folder of the attacker's (nobody).
        let shared = server.folder.path + "/shared", mine = server.folder.path + "/attacker"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        chmod(shared, 0o1777)
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: false)
        chown(mine, 65534, 65534)
        chmod(mine, 0o755)
        // Links for the next process ids, as the old predictable name was FILE.partial-<pid>.
        let last = Int((try? String(contentsOfFile: "/proc/sys/kernel/ns_last_pid", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        let destination = shared + "/backup.sqlite"
        for pid in (last + 1)...(last + 3_000) {
            symlink(mine + "/stolen-\(pid)", destination + ".partial-\(pid)")
            lchown(destination + ".partial-\(pid)", 65534, 65534)
        }
        let r = try ubiquity(["backup", "--data", server.data, destination], environment: server.environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: mine).isEmpty, "the backup wrote through a planted link")
        var st = stat()
        #expect(lstat(destination, &st) == 0 && st.st_mode & 0o7777 == 0o600 && st.st_mode & S_IFMT == S_IFREG)
        // Nothing else of the backup's is left in the folder (no partial file, no private folder).
        let left = try FileManager.default.contentsOfDirectory(atPath: shared).filter { !$0.contains(".partial-") }
        #expect(left == ["backup.sqlite"], "\(left)")
        // A link planted at the destination itself is never followed or replaced.
        let planted = shared + "/planted.sqlite"
        symlink(mine + "/target", planted)
        let refused = try ubiquity(["backup", "--data", server.data, planted], environment: server.environment)
        #expect(refused.status == 1 && refused.stderr.contains("never replaces"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: mine + "/target"))
    }

    @Test("metrics: paths chosen by unauthenticated clients make no series of their own", .requires(.curl), .requires(.prometheusParser))
    func metricsLabels() async throws {
        let port = ObservabilityTests.freePort()
        let server = try SyncServer(.sqlite, extraArguments: ["--metrics", "127.0.0.1:\(port)"])
        _ = try server.addAccount("alice")
        for i in 0..<60 {
            _ = try rawRequest(server, path: "/v1/made-up-\(i)")
            _ = try rawRequest(server, method: "POST", path: "/v1/stores/com.example.s\(i)/x\(i)")
            _ = try rawRequest(server, path: "/v1/stores/com.example.s\(i)/changes")
        }
        let parsed = try MetricsEndpoint(port: port).scrape()
        let routes = Set((parsed["ubiquity_requests_total"] ?? [:]).keys.compactMap { labels in
            labels.split(separator: ",").first { $0.hasPrefix("route=") }.map { String($0.dropFirst(6)) }
        })
        #expect(routes.isSubset(of: ["healthz", "readyz", "health", "account", "stores/commit", "stores/changes", "stores/events", "other"]), "\(routes)")
        #expect((parsed["ubiquity_requests_total"] ?? [:]).count <= 8, "\(parsed["ubiquity_requests_total"] ?? [:])")
    }

    @Test("a commit refused by the stores quota leaves no row; the commit log is bounded per store", arguments: Backend.available)
    func quotaLeavesNothing(backend: Backend) async throws {
        let server = try SyncServer(backend, extraArguments: ["--quota-stores", "1"])
        let token = try server.addAccount("alice")
        let t = HTTPUbiquityTransport(account: server.account(token: token))
        #expect(try await QuotaTests.commit(t, "com.example.kept", "k", .integer(1)).refusal == nil)
        for i in 0..<40 {
            let r = try await QuotaTests.commit(t, "com.example.refused\(i)", "k", .integer(1))
            #expect(r.refusal?.hasPrefix("quota \"stores\"") == true)
        }
        let list = try ubiquity(["account", "list"] + server.databaseArguments, environment: server.environment)
        #expect(list.status == 0, "\(list.stderr)")
        let line = list.stdout.split(separator: "\n").first { $0.hasPrefix("alice\t") }.map { $0.split(separator: "\t") } ?? []
        #expect(line.count == 5 && line[3] == "1", "stores: \(list.stdout)")
        // More commits than the log keeps: 2,100 in all, pruned when the revision reached 2,048,
        // so 1,024 + 52 rows are kept, in one store; `check` is clean.
        var base: Int64 = 1
        for i in 0..<(2_100 - 1) {
            base = try await QuotaTests.commit(t, "com.example.kept", "k", base: base, .integer(.init(Int64(i)))).revision
        }
        #expect(base == 2_100)
        let check = try server.check()
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let expected = ["1076", "1"]
        switch backend {
        case .sqlite:
            server.stop()
            let rows = try sqlite(server.data + "/ubiquity.sqlite", "SELECT count(*) FROM commits; SELECT count(*) FROM stores;")
            #expect(rows.split(separator: "\n").map(String.init) == expected, "\(rows)")
        case .postgres:
            let cluster = try #require(PostgresCluster.shared)
            let database = PostgresCluster.databaseName(try #require(server.postgres))
            let rows = [try cluster.psql("SELECT count(*) FROM commits", database: database), try cluster.psql("SELECT count(*) FROM stores", database: database)]
            #expect(rows.map { $0.stdout.trimmingCharacters(in: .whitespacesAndNewlines) } == expected, "\(rows.map(\.stdout)) \(rows.map(\.stderr))")
        }
    }

    @Test("a commit whose head was admitted before its token was revoked, or its account deleted, is refused when its body ends",
          arguments: Backend.available, ["revoke", "delete"])
    func inFlightAfterRevocation(backend: Backend, action: String) async throws {
        let server = try SyncServer(backend)
        var answered: String? = nil
        // The race is run again until the head was admitted before the revocation: a refusal on
        // the head says `Connection: close` (the body is never read); one when the body ends does not.
        for attempt in 0..<5 {
            let name = "alice\(attempt)"
            let token = try server.addAccount(name)
            let t = HTTPUbiquityTransport(account: server.account(token: token))
            #expect(try await QuotaTests.commit(t, "com.example.x", "before", .integer(1)).refusal == nil)
            let body = RawConnection.commitBody(key: "late", size: 100)
            let connection = try RawConnection(port: server.port)
            connection.send(RawConnection.commitHead(store: "com.example.x", token: token, length: body.count))
            connection.send(Array(body.prefix(10)))
            let r = action == "revoke"
                ? try ubiquity(["account", "revoke", name, "--all"] + server.databaseArguments, environment: server.environment)
                : try ubiquity(["account", "delete", name, "--yes"] + server.databaseArguments, environment: server.environment)
            #expect(r.status == 0, "\(r.stderr)")
            connection.send(Array(body.dropFirst(10)))
            let head = connection.head()
            if head?.lowercased().contains("connection: close") == true { continue }
            answered = head
            break
        }
        let status = try #require(answered, "in 5 attempts the head was never admitted before the revocation")
        #expect(status.hasPrefix("HTTP/1.1 401"), "\(status)")
        let check = try server.check()
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        if backend == .sqlite {
            server.stop()
            let rows = try sqlite(server.data + "/ubiquity.sqlite", "SELECT count(*) FROM entries WHERE key = 'late';")
            #expect(rows == "0", "\(rows)")
        }
    }

    /// A SQLite server with an account, and a backup of its database beside it.
    static func serverWithBackup() throws -> (SyncServer, String) {
        let server = try SyncServer(.sqlite)
        _ = try server.addAccount("alice")
        let backup = server.folder.path + "/backup.sqlite"
        let r = try ubiquity(["backup", "--data", server.data, backup], environment: server.environment)
        try #require(r.status == 0, "\(r.stderr)")
        return (server, backup)
    }

    @Test("restore refuses a database whose schema is not the server's (a trigger, a view)", .requires(.python))
    func restoreWithTrigger() throws {
        let (server, backup) = try Self.serverWithBackup()
        for (name, statement) in [
            ("trigger", "CREATE TRIGGER planted AFTER INSERT ON tokens BEGIN UPDATE tokens SET hash = zeroblob(32) WHERE hash = NEW.hash; END;"),
            ("view", "CREATE VIEW planted AS SELECT * FROM tokens;"),
        ] {
            let copy = server.folder.path + "/\(name).sqlite"
            try FileManager.default.copyItem(atPath: backup, toPath: copy)
            _ = try sqlite(copy, statement)
            let r = try ubiquity(["restore", "--data", server.folder.path + "/restored-\(name)", copy], environment: server.environment)
            #expect(r.status == 1 && r.stderr.contains("its schema differs") && r.stderr.contains("an unexpected \(name) planted"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: server.folder.path + "/restored-\(name)/ubiquity.sqlite"))
        }
        // The backup as made restores.
        let clean = try ubiquity(["restore", "--data", server.folder.path + "/restored", backup], environment: server.environment)
        #expect(clean.status == 0, "\(clean.stderr)")
    }

    @Test("restore as root into the service user's folder gives the database to that user", .requires(.root))
    func restoreKeepsOwner() throws {
        let (server, backup) = try Self.serverWithBackup()
        let folder = server.folder.path + "/service"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        chown(folder, 65534, 65534)
        chmod(folder, 0o700)
        let r = try ubiquity(["restore", "--data", folder, backup], environment: server.environment)
        #expect(r.status == 0, "\(r.stderr)")
        var st = stat()
        #expect(lstat(folder + "/ubiquity.sqlite", &st) == 0 && st.st_uid == 65534 && st.st_mode & 0o7777 == 0o600)
    }

    @Test("a long poll open when its token is revoked ends with 401 and delivers nothing written after",
          .requires(.curl), .requires(.prometheusParser))
    func longPollAtRevocation() async throws {
        let port = ObservabilityTests.freePort()
        let server = try SyncServer(.sqlite, extraArguments: ["--metrics", "127.0.0.1:\(port)"])
        let token = try server.addAccount("alice")
        let second = try ubiquity(["account", "issue", "alice", "--token-name", "other"] + server.databaseArguments, environment: server.environment)
        let other = try #require(second.stdout.split(separator: "\n").last.map(String.init))
        let t = HTTPUbiquityTransport(account: server.account(token: other))
        #expect(try await QuotaTests.commit(t, "com.example.p", "k", .integer(1)).refusal == nil)
        let finished = Flag()
        let poll = Task.detached {
            defer { finished.set() }
            return try curl(["-H", "Authorization: Bearer \(token)", server.url + "/v1/stores/com.example.p/changes?after=1&wait=25"])
        }
        // Proven waiting: the server counts it.
        let metrics = MetricsEndpoint(port: port)
        #expect(await settle(10) { (try? metrics.scrape())?["ubiquity_long_polls"]?[""] == 1 }, "the long poll never started waiting")
        #expect(try ubiquity(["account", "revoke", "alice", "--token-name", "default"] + server.databaseArguments, environment: server.environment).status == 0)
        // It ends on the revocation (within a second: the token generation is read every 250 ms), not at its 25 s.
        #expect(await settle(5) { finished.isSet }, "the long poll was still open 5 s after its token was revoked")
        _ = try await QuotaTests.commit(t, "com.example.p", "k", base: 1, .string("after the revocation"))
        let answer = try await poll.value
        #expect(answer.status == "401", "\(answer.status) \(answer.body)")
        #expect(!answer.body.contains("after"), "\(answer.body)")
    }

    @Test("`ubiquity list` and `get` print a right-to-left override in a key or value escaped")
    func bidiEscaped() async throws {
        let server = try SyncServer(.sqlite)
        let token = try server.addAccount("alice")
        let machine = try Machine("bidi")
        try machine.login(server, token: token)
        let key = "invoice\u{202E}fdp.exe", value = "pay\u{2066}now\u{2069}"
        #expect(try machine.run("set", "--store", "com.example.bidi", key, "-string", value).status == 0)
        let list = try machine.run("list", "--store", "com.example.bidi")
        let get = try machine.run("get", "--store", "com.example.bidi", key)
        for r in [list, get] {
            #expect(r.status == 0, "\(r.stderr)")
            #expect(!r.stdout.unicodeScalars.contains { [0x202E, 0x2066, 0x2069].contains($0.value) }, "\(r.stdout)")
        }
        #expect(list.stdout.contains("invoice\\u{202E}fdp.exe"), "\(list.stdout)")
    }

    @Test("with --log-format json a failed commit (a full disk) is logged as a JSON line, like every other line", .requires(.root))
    func jsonFailureLine() async throws {
        let server = try SyncServer(.sqlite, extraArguments: ["--log-format", "json"])
        let token = try server.addAccount("alice")
        server.stop()
        // The data folder on a small file system, then filled.
        let saved = server.folder.path + "/saved"
        try FileManager.default.moveItem(atPath: server.data, toPath: saved)
        try FileManager.default.createDirectory(atPath: server.data, withIntermediateDirectories: false)
        let mount = try runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=4096k", "tmpfs", server.data])
        try #require(mount.status == 0, "cannot mount a tmpfs: \(mount.stderr)")
        defer {
            server.stop()
            _ = try? runProcess("/bin/umount", ["-l", server.data])
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: saved) {
            try FileManager.default.copyItem(atPath: saved + "/" + name, toPath: server.data + "/" + name)
        }
        try server.restart()
        let filler = FileHandle(forWritingAtPath: { _ = FileManager.default.createFile(atPath: server.data + "/filler", contents: nil); return server.data + "/filler" }())!
        while (try? filler.write(contentsOf: Data(count: 64 << 10))) != nil {}
        try? filler.close()
        let t = HTTPUbiquityTransport(account: server.account(token: token))
        var failed = false
        for i in 0..<20 where !failed {
            do {
                _ = try await QuotaTests.commit(t, "com.example.full\(i)", "k", .data(Data(count: 200_000)))
            } catch {
                failed = true
            }
        }
        #expect(failed, "no commit failed on a full disk")
        #expect(await settle(10) { server.logText.contains("commit failed") || server.logText.contains("unavailable") }, "\(server.logText)")
        let lines = server.logText.split(separator: "\n").filter { !$0.isEmpty }
        let notJSON = lines.filter { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) == nil }
        #expect(notJSON.isEmpty, "lines not in JSON: \(notJSON.prefix(3))")
    }

    @Test("a settings file that others could have written is refused; every number is range-checked")
    func settingsFileTrust() throws {
        let folder = try TemporaryFolder("settings-trust")
        let open = folder.path + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        chmod(open, 0o777)
        let plist = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>port</key><integer>0</integer></dict></plist>"#
        for (file, mode) in [(folder.path + "/writable.plist", 0o666), (open + "/in-open-folder.plist", 0o600)] {
            try plist.write(toFile: file, atomically: false, encoding: .utf8)
            chmod(file, mode_t(mode))
            let r = try ubiquity(["serve", "--config", file, "--data", folder.path + "/data"], environment: ProcessInfo.processInfo.environment)
            #expect(r.status != 0 && r.stderr.contains("is not trusted") && r.stderr.contains("writable by group or others"), "\(r.stderr)")
        }
        let huge = try ubiquity(["serve", "--port", "0", "--data", folder.path + "/data", "--stop-timeout", "9223372036854775807"],
                                environment: ProcessInfo.processInfo.environment)
        #expect(huge.status == 64 && huge.stderr.contains("--stop-timeout must be from 1 to 86400 seconds"), "\(huge.stderr)")
    }
}

/// Runs `sql` on the SQLite database `path` through Python's sqlite3; its output.
func sqlite(_ path: String, _ sql: String) throws -> String {
    let r = try runProcess(Requirement.pythonPath ?? "/usr/bin/python3", ["-c", """
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        out = []
        if sys.argv[2].lstrip().upper().startswith("CREATE"):
            db.executescript(sys.argv[2])
        else:
            for statement in [s for s in sys.argv[2].split(";") if s.strip()]:
                for row in db.execute(statement):
                    out.append("|".join(str(c) for c in row))
        db.commit()
        print("\\n".join(out), end="")
        """, path, sql])
    guard r.status == 0 else { throw POSIXError(.EIO, userInfo: [NSLocalizedDescriptionKey: r.stderr]) }
    return r.stdout
}

/// Issue 43: a refusal sent on a request's head reaches the client, whatever the body it was sending.
@Suite("a refusal reaches the client", .offThePool, .exclusive(.servers), .serialized, .timeLimit(.minutes(10)))
struct LingeringCloseTests {
    /// Sends `head` and `body` while reading the answer, as an HTTP client does; the status line, or nil.
    static func exchange(port: Int, head: String, body: [UInt8]) throws -> String? {
        let connection = try RawConnection(port: port)
        let flags = fcntl(connection.fd, F_GETFL)
        _ = fcntl(connection.fd, F_SETFL, flags | O_NONBLOCK)
        let bytes = Array(head.utf8) + body
        var sent = 0
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            var fds = pollfd(fd: connection.fd, events: Int16(POLLIN) | (sent < bytes.count ? Int16(POLLOUT) : 0), revents: 0)
            guard poll(&fds, 1, 1_000) >= 0 else { return nil }
            if fds.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let n = recv(connection.fd, &buffer, buffer.count, 0)
                if n > 0 {
                    answer += buffer[0..<n]
                    let text = String(decoding: answer, as: UTF8.self)
                    if text.contains("\r\n\r\n") { return String(text.split(separator: "\r\n").first ?? "") }
                } else if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                    return nil
                }
            }
            if sent < bytes.count, fds.revents & Int16(POLLOUT) != 0 {
                let n = bytes[sent...].withUnsafeBytes { Glibc.send(connection.fd, $0.baseAddress, min($0.count, 65_536), Int32(MSG_NOSIGNAL)) }
                if n > 0 { sent += n } else if errno != EAGAIN && errno != EWOULDBLOCK { sent = bytes.count }
            }
        }
        return nil
    }

    @Test("200 commits with a revoked token, bodies of 2 KB to 4 MB sent at once: the 401 arrives every time (raw client)",
          arguments: Backend.available)
    func rawClient(backend: Backend) async throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        #expect(try ubiquity(["account", "revoke", "alice", "--all"] + server.databaseArguments, environment: server.environment).status == 0)
        let port = server.port
        var lost: [Int] = []
        for i in 0..<200 {
            let size = 2_000 + (4_000_000 - 2_000) * i / 199
            let body = [UInt8](repeating: 0x20, count: size)
            let head = RawConnection.commitHead(store: "com.example.linger", token: token, length: size)
            let status = try await offThePool { try Self.exchange(port: port, head: head, body: body) }
            if status?.hasPrefix("HTTP/1.1 401") != true { lost.append(size) }
        }
        #expect(lost.isEmpty, "no 401 for bodies of \(lost.prefix(10)) bytes (\(lost.count) of 200)")
    }

    @Test("`ubiquity set` with a revoked token says the token is not valid and exits 1, whatever the value's size (40 tries)")
    func throughTheTool() async throws {
        let server = try SyncServer(.sqlite)
        let token = try server.addAccount("alice")
        let machine = try Machine("linger")
        try machine.login(server, token: token)
        #expect(try ubiquity(["account", "revoke", "alice", "--all"] + server.databaseArguments, environment: server.environment).status == 0)
        var wrong: [String] = []
        // 40 tries: against a server that closes at once after refusing (before issue 43), 2 runs
        // in 3 of 20 tries each saw a lost refusal here; the client alone cannot make up for it.
        for i in 0..<40 {
            // An array of 2 to 900 strings of 1,000 characters: values of 2 KB to 900 KB.
            let words = ["set", "--store", "com.example.linger", "k\(i)", "-array"]
                + Array(repeating: String(repeating: "v", count: 1_000), count: i == 0 ? 2 : (i * 23) % 900 + 2)
            let r = try await offThePool { try machine.run(words) }
            if r.status != 1 || !r.stderr.contains("401") || !r.stderr.contains("this machine's token is not valid")
                || !r.stderr.contains("log in again with `ubiquity login \(server.url)`") || !r.stderr.contains("the write is kept on this machine") {
                wrong.append("\(words.count): \(r.status) \(r.stderr)")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(3))")
    }
}
