import Foundation
import Testing
import TestSupport

/// Issue 30: the `ubiquity` client says what is wrong in words, at once.
@Suite("ubiquity: the client explains itself", .offThePool, .exclusive(.servers), .serialized, .timeLimit(.minutes(3)))
struct ClientMessageTests {
    static let store = "com.example.messages"

    /// A loopback port nothing listens on.
    static func closedPort() throws -> Int {
        let server = try SyncServer(.sqlite)
        let port = server.port
        server.stop()
        return port
    }

    @Test("a server that is down: 'connection refused', no library type or errno number")
    func serverDown() throws {
        let port = try Self.closedPort()
        let m = try Machine("down")
        let r = try ubiquity(["login", "http://127.0.0.1:\(port)"], environment: m.environment, input: "token\n")
        #expect(r.status == 1)
        #expect(r.stderr == "ubiquity: cannot log in: the sync server could not be reached: http://127.0.0.1:\(port): connection refused\n", "\(r.stderr)")
    }

    @Test("not logged in: get, list and watch say so")
    func notLoggedIn() throws {
        let m = try Machine("nologin")
        let get = try m.run("get", "--store", Self.store, "k")
        #expect(get.status == 1)
        #expect(get.stderr == "ubiquity: not logged in (`ubiquity login <server-URL>`): this machine's copy only\nubiquity: the key \"k\" does not exist in store \(Self.store)\n", "\(get.stderr)")
        let list = try m.run("list", "--store", Self.store)
        #expect(list.status == 0 && list.stderr.hasPrefix("ubiquity: not logged in"), "\(list.stderr)")
        let watch = try m.run("watch", "--store", Self.store)
        #expect(watch.status == 1)
        #expect(watch.stderr == "ubiquity: not logged in: there is no server to watch (`ubiquity login <server-URL>`)\n", "\(watch.stderr)")
    }

    @Test("a write while the server is down says at once that it is kept; watch says when the server is lost and back")
    func offline() async throws {
        let server = try SyncServer(.sqlite)
        let token = try server.addAccount("alice")
        let m = try Machine("offline")
        try m.login(server, token: token)
        #expect(try m.run("set", "--store", Self.store, "warm", "1").status == 0)
        let watch = try m.watch(Self.store)
        // The watch follows the server (its first answer); then the server goes.
        await pause(1)
        #expect(watch.errorLines.isEmpty, "\(watch.errorLines)")
        server.stop()
        #expect(await settle { watch.errorLines.contains { $0.hasPrefix("ubiquity: lost http://127.0.0.1:\(server.port); retrying") } }, "\(watch.errorLines)")
        let set = try await offThePool { try m.run("set", "--store", Self.store, "k", "v") }
        #expect(set.status == 0)
        let lines = set.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "ubiquity: waiting for http://127.0.0.1:\(server.port): the write is kept on this machine meanwhile", "\(set.stderr)")
        #expect(lines.last == "ubiquity: the write is kept on this machine and uploaded by the next `ubiquity sync`", "\(set.stderr)")
        #expect(!set.stderr.contains("errno") && !set.stderr.contains("Error"), "\(set.stderr)")
        try await offThePool { try server.restart() }
        #expect(await settle { watch.errorLines.contains("ubiquity: http://127.0.0.1:\(server.port) is back") }, "\(watch.errorLines)")
        #expect(try await offThePool { try m.run("sync", "--store", Self.store) }.status == 0)
    }

    @Test("--help's example survives an 80-column terminal: every command whole on its line")
    func helpExample() throws {
        var env = ProcessInfo.processInfo.environment
        env["COLUMNS"] = "80"
        let r = try ubiquity(["--help"], environment: env)
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines.filter { $0.count > 80 })")
        for command in ["  ubiquity account add me --create | tail -n 1 > token", "  ubiquity serve --port 8470 &",
                        "  ubiquity login http://127.0.0.1:8470 < token",
                        "  HOME=/tmp/b ubiquity login http://127.0.0.1:8470 < token",
                        "  HOME=/tmp/b ubiquity get --store com.example.notes theme"] {
            #expect(lines.contains(command), "\(command)")
        }
    }
}
