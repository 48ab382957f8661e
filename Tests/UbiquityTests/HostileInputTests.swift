import Foundation
import OpenDefaults
import OpenDefaultsUbiquity
@testable import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing
import TestSupport

/// A server that lies, written in Python beside this file (`Scripts/hostile_server.py`).
final class HostileServer: @unchecked Sendable {
    let process: Process
    let port: Int
    var url: String { "http://127.0.0.1:\(port)" }

    init(_ mode: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/hostile_server.py").path
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)").path
        process = try startProcess("/usr/bin/env", ["python3", script, mode, portFile]).process
        var port: Int? = nil
        _ = eventually(10) {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            return port != nil
        }
        try? FileManager.default.removeItem(atPath: portFile)
        guard let port else { throw HostileServerFailed() }
        self.port = port
    }

    struct HostileServerFailed: Error {}

    deinit {
        // SIGKILL: the test runner blocks SIGTERM, and children inherit the mask.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// The size of every file under `folder`, together.
func bytesUnder(_ folder: String) -> Int {
    let files = FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []
    return files.reduce(0) { sum, name in
        sum + ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int) ?? 0)
    }
}

/// Issue 25: the client trusts no server; the server takes no value it cannot bound.
@Suite("ubiquity under attack: hostile values, hostile servers, logins", .offThePool, .exclusive(.servers), .timeLimit(.minutes(10)), .serialized)
struct HostileInputTests {
    static let store = "com.example.hostile"

    @Test("a client refuses a value that expands through shared references, keeps nothing of it, and says so")
    func clientRefusesExpandingValue() throws {
        let server = try HostileServer("bomb")
        let m = try Machine("m")
        #expect(try ubiquity(["login", server.url], environment: m.environment, input: "t\n").status == 0)
        let started = ContinuousClock.now
        let r = try m.run("sync", "--store", Self.store)
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(r.status != 0)
        #expect(r.stderr.contains("refused") && r.stderr.contains("shared references"), "\(r.stderr)")
        #expect(try m.run("get", "--store", Self.store, "bomb").status == 1)
        #expect(bytesUnder(m.home.path) < 1 << 20, "the machine's files hold \(bytesUnder(m.home.path)) bytes")
    }

    @Test("a client refuses an answer of 50,000 keys (a store holds 1,024) and applies none of it")
    func clientRefusesTooManyKeys() throws {
        let server = try HostileServer("many")
        let m = try Machine("m")
        #expect(try ubiquity(["login", server.url], environment: m.environment, input: "t\n").status == 0)
        let r = try m.run("sync", "--store", Self.store)
        #expect(r.status != 0)
        #expect(r.stderr.contains("50000 keys") || r.stderr.contains("keys; a store holds at most 1024"), "\(r.stderr)")
        let listed = try m.run("list", "--store", Self.store)
        let list = listed.stdout
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(!list.contains("k0") && !list.contains("k49999"), "\(list.prefix(200))")
    }

    @Test("an account name with terminal escapes and a newline is printed escaped")
    func escapesServerText() throws {
        let server = try HostileServer("escape")
        let m = try Machine("m")
        let r = try ubiquity(["login", server.url], environment: m.environment, input: "t\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("\u{1B}"))
        #expect(r.stdout.split(separator: "\n").count == 1, "\(r.stdout)")
        #expect(r.stdout.contains("bank\\u{1B}[2J"))
    }

    @Test("login gives up when a server trickles its answer, within its deadline")
    func loginDeadline() throws {
        let server = try HostileServer("slow")
        let m = try Machine("m")
        let started = ContinuousClock.now
        let r = try ubiquity(["login", server.url, "--timeout", "3"], environment: m.environment, input: "t\n")
        #expect(ContinuousClock.now - started < .seconds(8))
        #expect(r.status != 0)
        #expect(r.stderr.contains("did not answer within"), "\(r.stderr)")
    }

    @Test("login reads the token from standard input or a file; on the command line it warns")
    func tokenNotOnCommandLine() throws {
        let server = try SyncServer(.sqlite)
        let token = try server.addAccount("alice")
        let m = try Machine("m")
        let stdin = try ubiquity(["login", server.url], environment: m.environment, input: token + "\n")
        #expect(stdin.status == 0, "\(stdin.stderr)")
        #expect(stdin.stderr.isEmpty)
        let file = m.home.path + "/token"
        try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let fromFile = try m.run("login", server.url, "--token-file", file)
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromFile.stderr.isEmpty)
        let argument = try m.run("login", server.url, token)
        #expect(argument.status == 0)
        #expect(argument.stderr.contains("warning: a token given on the command line can be read by other local users"))
    }

    @Test("the login file is 0600 even when an earlier one was 0644")
    func loginFileMode() throws {
        let server = try SyncServer(.sqlite)
        let token = try server.addAccount("alice")
        let m = try Machine("m")
        #expect(try ubiquity(["login", server.url], environment: m.environment, input: token + "\n").status == 0)
        let path = m.home.path + "/.config/org.opendefaults.ubiquity.account.plist"
        #expect(FileManager.default.fileExists(atPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        #expect(try ubiquity(["login", server.url], environment: m.environment, input: token + "\n").status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("login refuses plain http:// beyond loopback without --insecure; 127.example.invalid is not loopback")
    func plainHTTPBeyondLoopback() throws {
        let m = try Machine("m")
        for url in ["http://example.invalid:8470", "http://127.example.invalid:8470", "http://10.1.2.3:8470", "http://user@192.0.2.1/"] {
            let r = try ubiquity(["login", url], environment: m.environment, input: "t\n")
            #expect(r.status != 0)
            #expect(r.stderr.contains("is not loopback"), "\(url): \(r.stderr)")
        }
        // `serve` decides on the address too.
        let serve = try m.run("serve", "--host", "127.example.invalid", "--port", "0", "--data", m.home.path + "/data")
        #expect(serve.status != 0)
        #expect(serve.stderr.contains("beyond loopback"), "\(serve.stderr)")
    }

    @Test("the server's database and its WAL are 0600 in an existing 0755 folder, whatever the umask", arguments: ["000", "022", "077"])
    func databaseMode(umask: String) throws {
        let folder = try TemporaryFolder("data")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let m = try Machine("m")
        // The tool started under the umask (the shell sets it, then becomes the tool).
        let tool = products.appendingPathComponent("ubiquity").path
        let r = try runProcess("/bin/sh", ["-c", "umask \(umask); exec \"$0\" \"$@\"", tool, "account", "add", "alice", "--create", "--data", folder.path],
                               environment: m.environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/ubiquity.sqlite"))
        // (SQLite removes the WAL and its index at a clean close: checked when they are left.)
        for name in ["ubiquity.sqlite", "ubiquity.sqlite-wal", "ubiquity.sqlite-shm"] where FileManager.default.fileExists(atPath: folder.path + "/" + name) {
            let mode = try FileManager.default.attributesOfItem(atPath: folder.path + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o600, "umask \(umask), \(name): \(String(mode ?? 0, radix: 8))")
        }
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        #expect(folderMode == 0o755, "umask \(umask): the existing folder's mode became \(String(folderMode ?? 0, radix: 8))")
        // A running server under the umask, after a commit: its WAL and index exist, and are 0600 too.
        let server = try SyncServer(.sqlite, launcher: ["/bin/sh", "-c", "umask \(umask); exec \"$0\" \"$@\""])
        try m.login(server, token: try server.addAccount("bob"))
        #expect(try m.run("set", "--store", "com.example.modes", "k", "-int", "1").status == 0)
        for name in ["ubiquity.sqlite", "ubiquity.sqlite-wal", "ubiquity.sqlite-shm"] {
            let mode = try FileManager.default.attributesOfItem(atPath: server.data + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o600, "umask \(umask), a running server's \(name): \(String(mode ?? 0, radix: 8))")
        }
    }

    @Test("a database whose pages are damaged is refused at start with a clear message, and left as it was")
    func damagedDatabase() throws {
        let folder = try TemporaryFolder("data")
        let m = try Machine("m")
        #expect(try m.run("account", "add", "alice", "--create", "--data", folder.path).status == 0)
        let db = folder.path + "/ubiquity.sqlite"
        // Pages of data, all in the main file, then bytes flipped inside one of them.
        let fill = try runProcess("/usr/bin/env", ["python3", "-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("CREATE TABLE filler (n INTEGER PRIMARY KEY, b BLOB)")
            c.executemany("INSERT INTO filler VALUES (?, ?)", [(i, bytes(300)) for i in range(600)])
            c.commit()
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            size = c.execute("PRAGMA page_size").fetchone()[0]
            pages = c.execute("PRAGMA page_count").fetchone()[0]
            c.close()
            with open(sys.argv[1], "r+b") as f:
                f.seek(size * (pages - 5))
                f.write(b"\\xff" * 64)
            """, db])
        #expect(fill.status == 0, "\(fill.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let serve = try m.run("serve", "--port", "0", "--data", folder.path)
        #expect(serve.status != 0)
        #expect(serve.stderr.contains("is damaged") && serve.stderr.contains("it is not served"), "\(serve.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "the damaged file was changed")
    }

    @Test("a commit whose value expands through shared references is refused at once in bounded memory", arguments: Backend.available)
    func serverRefusesExpandingValue(backend: Backend) throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let bomb = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/bomb-30.bplist"))
        let body = #"{"changes":[{"key":"bomb","base":0,"value":"\#(bomb.base64EncodedString())"}]}"#
        let started = ContinuousClock.now
        let r = try curl(["-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
                          "--data-binary", body, server.url + "/v1/stores/\(Self.store)/commit"])
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(r.status == "413", "\(r.body)")
        #expect(r.body.contains("shared references"))
        // Nothing was written, and the server still answers.
        let after = try curl(["-H", "Authorization: Bearer \(token)", server.url + "/v1/stores/\(Self.store)/changes?after=0"])
        #expect(after.status == "200")
        #expect(!after.body.contains("bomb"))
        #expect(try server.check().status == 0)
    }

    @Test("a key holding NUL or another control character is refused, never stored cut short", arguments: Backend.available)
    func controlCharactersInKeys(backend: Backend) throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let value = UbiquityWireValue.encode(.string("x"))
        for key in [#"a\u0000b"#, #"a\u001bb"#, #"tab\tkey"#, #"\u007f"#] {
            let body = #"{"changes":[{"key":"\#(key)","base":0,"value":"\#(value)"}]}"#
            let r = try curl(["-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
                              "--data-binary", body, server.url + "/v1/stores/\(Self.store)/commit"])
            #expect(r.status == "400", "\(key): \(r.status) \(r.body)")
            #expect(r.body.contains("control character"), "\(r.body)")
        }
        let after = try curl(["-H", "Authorization: Bearer \(token)", server.url + "/v1/stores/\(Self.store)/changes?after=0"])
        #expect(after.body.contains(#""entries":[]"#), "\(after.body)")
        // The library refuses them before they leave.
        #expect(throws: UbiquityError.self) { try UbiquityLimits.check(key: "a\u{0}b") }
    }

    @Test("an event of data lines that never ends is an error at its bound, not memory")
    func eventStreamBound() throws {
        var parser = ServerSentEventParser()
        let line = Array(("data: " + String(repeating: "x", count: 1 << 20) + "\n").utf8)
        var failure: ServerSentEventParser.ParseError?
        for _ in 0..<40 {
            do { _ = try parser.feed(line) } catch { failure = error; break }
        }
        guard case .eventTooLarge(let size)? = failure else {
            Issue.record("no error after 40 MB of data lines: \(String(describing: failure))")
            return
        }
        #expect(size > ServerSentEventParser.maximumEvent && size <= ServerSentEventParser.maximumEvent + (1 << 20) + 1)
    }
}

/// Issue 25 item 8: each local store's files have names no other store's can take.
@Suite("ubiquity: local stores never share a file", .offThePool, .exclusive(.servers), .timeLimit(.minutes(10)))
struct LocalStoreFileTests {
    @Test("stores X and X.sync keep their own values and state, in this process and the next")
    func lookalikeStoreNames() throws {
        let folder = try TemporaryFolder("names")
        // Logged in to a server that is never reached: every write stays pending (state entries).
        let account = UbiquityAccount(server: "http://127.0.0.1:9", token: "t", name: "a", identifier: "acct")
        func open(_ id: String) -> UbiquitousKeyValueStore {
            UbiquitousKeyValueStore(storeIdentifier: id, configuration: .init(
                dataDirectory: folder.path, account: account, watches: false, domainStore: DomainStore(layout: .current)))
        }
        let x = open("com.example.x"), xSync = open("com.example.x.sync")
        try x.setOrThrow(.string("one"), forKey: "k")
        try xSync.setOrThrow(.string("two"), forKey: "m")
        #expect(x.synchronize() && xSync.synchronize())
        #expect(Set(x.propertyLists.keys) == ["k"], "\(x.propertyLists.keys.sorted())")
        #expect(Set(xSync.propertyLists.keys) == ["m"], "\(xSync.propertyLists.keys.sorted())")
        // Read again by fresh stores (as by the next process): nothing of one is in the other.
        let x2 = open("com.example.x"), xSync2 = open("com.example.x.sync")
        #expect(x2.propertyLists == ["k": .string("one")])
        #expect(xSync2.propertyLists == ["m": .string("two")])
    }
}

/// `curl -s -o - -w '%{http_code}'`: the status and the body.
func curl(_ args: [String]) throws -> (status: String, body: String) {
    let text = try runProcess("/usr/bin/env", ["curl", "-s", "--max-time", "20", "-w", "\n%{http_code}"] + args).stdout
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
}
