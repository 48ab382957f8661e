import Foundation
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing
import TestSupport

/// Machines (separate homes) against a real `ubiquity serve`.
@Suite("ubiquity: machines syncing through a real server", .offThePool, .exclusive(.servers), .timeLimit(.minutes(10)), .serialized)
struct SyncTests {
    static let store = "com.example.notes"

    @Test("every value type written on A reads the same on B", arguments: Backend.available)
    func everyValueTypeRoundTrips(backend: Backend) throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let a = try Machine("a"), b = try Machine("b")
        try a.login(server, token: token)
        try b.login(server, token: token)
        let values: [(String, [String])] = [
            ("s", ["-string", "héllo wörld"]), ("i", ["-int", "-42"]), ("f", ["-float", "2.5"]),
            ("b", ["-bool", "YES"]), ("d", ["-date", "2024-01-02 03:04:05 +0000"]), ("x", ["-data", "deadbeef"]),
            ("arr", ["-array", "one", "-int", "2", "-bool", "NO"]), ("dict", ["-dict", "k", "v", "n", "-int", "7"]),
            ("lit", ["{ a = (1, 2); b = <00ff>; }"]),
        ]
        for (key, value) in values {
            let r = try a.run(["set", "--store", Self.store, key] + value)
            #expect(r.status == 0, "set \(key): \(r.stderr)")
            // Nothing said but, on a slow machine, the notice that the server takes more than 0.3 s.
            let said = r.stderr.split(separator: "\n").filter { !($0.hasPrefix("ubiquity: waiting for ") && $0.hasSuffix("the write is kept on this machine meanwhile")) }
            #expect(said.isEmpty, "set \(key): \(r.stderr)")
        }
        for (key, _) in values {
            let mine = try a.run("get", "--store", Self.store, key)
            let theirs = try b.run("get", "--store", Self.store, key)
            #expect(theirs.status == 0, "get \(key): \(theirs.stderr)")
            #expect(theirs.stdout == mine.stdout, "\(key)")
        }
        #expect(try b.run("get", "--store", Self.store, "f").stdout == "2.5\n")
        #expect(try b.run("get", "--store", Self.store, "arr").stdout == "(\n    one,\n    2,\n    0\n)\n")
        let absent = try b.run("get", "--store", Self.store, "missing")
        #expect(absent.status == 1)
        #expect(absent.stdout.isEmpty)
        let (listA, listB) = (try a.run("list", "--store", Self.store), try b.run("list", "--store", Self.store))
        #expect(listA.status == 0 && listB.status == 0 && listA.stdout.contains("arr"), "\(listA.stderr)\(listB.stderr)")
        #expect(listB.stdout == listA.stdout)
        // Removal travels too.
        #expect(try a.run("remove", "--store", Self.store, "s").status == 0)
        #expect(try b.run("get", "--store", Self.store, "s").status == 1)
        #expect(try server.check().status == 0)
    }

    @Test("a write is in this machine's files before the server has it: another process here that hears the server's echo finds it there")
    func writeOnDiskBeforeTheServerHasIt() async throws {
        let server = try SyncServer(.sqlite)
        let token = try server.addAccount("alice")
        let folder = try TemporaryFolder("api")
        let c = apiStore(Self.store, server: server, token: token, folder: folder, watches: false)
        let observer = HTTPUbiquityTransport(account: server.account(token: token))
        for round in 0..<5 {
            let key = "k\(round)"
            c.set("v\(round)", forKey: key)
            // Asked again and again (no pause): as soon as the server holds the write, the file
            // must hold it too. The upload starts 2 ms after the write, the scheduled flush 20 ms.
            var seen = false
            let deadline = ContinuousClock.now + .seconds(30)
            while !seen, ContinuousClock.now < deadline {
                seen = try await observer.changes(store: Self.store, after: 0, wait: nil).entries.contains { $0.key == key }
            }
            #expect(seen, "the server never had \(key)")
            let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix("/" + Self.store + ".plist") }
            #expect(files.count == 1, "\(files)")
            let onDisk = try files.first.map { try PropertyList(decoding: Data(contentsOf: URL(fileURLWithPath: folder.path + "/" + $0))) }
            #expect(onDisk?.dictionaryValue?[LiteralString(key)] == .string("v\(round)"), "round \(round): the file held \(String(describing: onDisk)) when the server had \(key)")
        }
    }

    @Test("A's write reaches B's watch and B's API as ServerChange; A hears nothing of its own write", arguments: Backend.available)
    func writeReachesOthers(backend: Backend) async throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let a = try Machine("a"), b = try Machine("b")
        try a.login(server, token: token)
        try b.login(server, token: token)
        #expect(try a.run("set", "--store", Self.store, "warmup", "1").status == 0)
        let watchA = try a.watch(Self.store), watchB = try b.watch(Self.store)
        let folder = try TemporaryFolder("api")
        let c = apiStore(Self.store, server: server, token: token, folder: folder)
        let log = ChangeLog(c)
        #expect(await settle { c.string(forKey: "warmup") == "1" })
        // Give the watchers time to finish their initial sync.
        #expect(await watchB.settleFor { $0.hasPrefix("InitialSyncChange") })
        await pause(0.3)
        #expect(try a.run("set", "--store", Self.store, "theme", "dark").status == 0)
        #expect(await watchB.settleFor { $0 == "ServerChange theme" }, "B's watch: \(watchB.lines)")
        #expect(await settle { log.all.contains(UbiquityExternalChange(reason: .serverChange, changedKeys: ["theme"])) }, "\(log.all)")
        #expect(c.string(forKey: "theme") == "dark")
        // A marker written later by B: once A hears it, an echo of A's own write
        // (an earlier revision, delivered in order) would have come before it.
        #expect(try b.run("set", "--store", Self.store, "marker1", "1").status == 0)
        #expect(await watchA.settleFor { $0 == "ServerChange marker1" }, "A never heard B's marker: \(watchA.lines)")
        #expect(!watchA.lines.contains { $0.contains("theme") }, "A heard its own write: \(watchA.lines)")
        // And the other way: the API's write reaches both watches, not its own log.
        c.set("blue", forKey: "color")
        #expect(await watchA.settleFor { $0 == "ServerChange color" }, "\(watchA.lines); its standard error: \(watchA.errorLines)")
        #expect(await watchB.settleFor { $0 == "ServerChange color" }, "\(watchB.lines)")
        // The same for the API's store: a later marker from B arrives, its own write never does.
        #expect(try b.run("set", "--store", Self.store, "marker2", "1").status == 0)
        #expect(await settle { log.all.contains { $0.changedKeys.contains("marker2") } }, "the API's store never heard B's marker: \(log.all)")
        #expect(!log.all.contains { $0.changedKeys.contains("color") }, "\(log.all)")
    }

    @Test("two machines writing one key from the same base converge, with exactly one ServerChange to the loser", arguments: Backend.available)
    func conflictsConverge(backend: Backend) async throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        for round in 0..<5 {
            let fa = try TemporaryFolder("a"), fb = try TemporaryFolder("b")
            let id = "com.example.race\(round)"
            let a = apiStore(id, server: server, token: token, folder: fa)
            let b = apiStore(id, server: server, token: token, folder: fb)
            let logA = ChangeLog(a), logB = ChangeLog(b)
            try a.setOrThrow(.string("base"), forKey: "k")
            try await a.synchronizeWithServer()
            #expect(await settle { b.string(forKey: "k") == "base" })
            try await b.synchronizeWithServer()
            await pause(0.2)
            // What came before the race (B heard of "base") does not count.
            let before = (logA.all.count, logB.all.count)
            // Same base on both; both write at once.
            try a.setOrThrow(.string("from A"), forKey: "k")
            try b.setOrThrow(.string("from B"), forKey: "k")
            try await a.synchronizeWithServer()
            try await b.synchronizeWithServer()
            try await a.synchronizeWithServer()
            #expect(await settle { a.string(forKey: "k") == b.string(forKey: "k") }, "round \(round): \(a.string(forKey: "k") ?? "nil") vs \(b.string(forKey: "k") ?? "nil")")
            await pause(0.3)
            let toA = logA.all.dropFirst(before.0).filter { $0.changedKeys.contains("k") }
            let toB = logB.all.dropFirst(before.1).filter { $0.changedKeys.contains("k") }
            #expect(toA.count + toB.count == 1, "round \(round): A \(toA), B \(toB)")
            let loser = toA.isEmpty ? b : a
            let winnerValue = toA.isEmpty ? "from A" : "from B"
            #expect(loser.string(forKey: "k") == winnerValue)
            #expect((toA + toB).allSatisfy { $0.reason == .serverChange })
        }
    }

    @Test("offline writes are kept, said so, and uploaded after the server is back", arguments: Backend.available)
    func offlineWrites(backend: Backend) throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let a = try Machine("a"), b = try Machine("b")
        try a.login(server, token: token)
        try b.login(server, token: token)
        #expect(try a.run("set", "--store", Self.store, "before", "1").status == 0)
        server.stop()
        let offline = try a.run("set", "--store", Self.store, "offline", "-int", "7")
        #expect(offline.status == 0)
        #expect(offline.stderr.contains("kept on this machine"), "\(offline.stderr)")
        #expect(try a.run("get", "--store", Self.store, "offline").stdout == "7\n", "reads stay local")
        let failedSync = try a.run("sync", "--store", Self.store)
        #expect(failedSync.status == 1)
        try server.restart()
        #expect(try a.run("sync", "--store", Self.store).status == 0)
        #expect(try b.run("get", "--store", Self.store, "offline").stdout == "7\n")
        #expect(try server.check().status == 0)
    }

    @Test("a fresh machine's first download is InitialSyncChange, and its earlier local write does not overwrite the server's value", arguments: Backend.available)
    func initialSync(backend: Backend) async throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let a = try Machine("a")
        try a.login(server, token: token)
        #expect(try a.run("set", "--store", Self.store, "shared", "server value").status == 0)
        #expect(try a.run("set", "--store", Self.store, "other", "x").status == 0)
        // A fresh machine's watch.
        let w = try Machine("w")
        try w.login(server, token: token)
        let watch = try w.watch(Self.store)
        #expect(await watch.settleFor { $0 == "InitialSyncChange other shared" }, "\(watch.lines)")
        // A fresh API store writes before its first download.
        let folder = try TemporaryFolder("fresh")
        let c = apiStore(Self.store, server: server, token: token, folder: folder, watches: false)
        let log = ChangeLog(c)
        try c.setOrThrow(.string("local value"), forKey: "shared")
        try c.setOrThrow(.string("new"), forKey: "mine")
        try await c.synchronizeWithServer()
        #expect(c.string(forKey: "shared") == "server value")
        #expect(c.string(forKey: "mine") == "new", "a key the server lacks is uploaded")
        #expect(await settle { log.all.contains { $0.reason == .initialSyncChange && $0.changedKeys.contains("shared") } }, "\(log.all)")
        let shared = try a.run("get", "--store", Self.store, "shared")
        #expect(shared.stdout == "server value\n", "\(shared)")
        #expect(try a.run("get", "--store", Self.store, "mine").stdout == "new\n")
    }

    @Test("logging in to another account posts AccountChange with every key and swaps the local copy", arguments: Backend.available)
    func accountChange(backend: Backend) throws {
        let server = try SyncServer(backend)
        let alice = try server.addAccount("alice"), bob = try server.addAccount("bob")
        let a = try Machine("a")
        try a.login(server, token: bob)
        #expect(try a.run("set", "--store", Self.store, "bobs", "b").status == 0)
        try a.login(server, token: alice)
        #expect(try a.run("set", "--store", Self.store, "alices", "a").status == 0)
        let watch = try a.watch(Self.store)   // returns once the watch says it is watching (READY=1)
        try a.login(server, token: bob)
        #expect(watch.waitFor { $0 == "AccountChange alices bobs" }, "\(watch.lines)")
        #expect(try a.run("get", "--store", Self.store, "alices").status == 1)
        #expect(try a.run("get", "--store", Self.store, "bobs").stdout == "b\n")
        let mode = try FileManager.default.attributesOfItem(atPath: a.home.path + "/.config/org.opendefaults.ubiquity.account.plist")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("kill -9 of the server during a stream of commits loses no acknowledged write and leaves no revision gap", arguments: Backend.available)
    func serverKilledDuringCommits(backend: Backend) async throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let transport = HTTPUbiquityTransport(account: server.account(token: token))
        let writers = 8
        let acknowledged = Acknowledged()
        let stop = Flag()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<writers {
                group.addTask { await writeOwnKey(w, of: "com.example.stream", through: [server], token: token, until: stop, acknowledged: acknowledged) }
            }
            // Events, not time: the kill comes once 50 commits were acknowledged.
            #expect(await settle(60) { acknowledged.count >= 50 }, "only \(acknowledged.count) commits acknowledged in 60 s")
            server.kill()
            stop.set()
            try await group.waitForAll()
        }
        #expect(acknowledged.anomalies.isEmpty, "\(acknowledged.anomalies)")
        try server.restart()
        // The client's connection pool backs off after the failures; retry as the sync engine does.
        var answer: UbiquityChangesResponse? = nil
        for _ in 0..<40 where answer == nil {
            answer = try? await transport.changes(store: "com.example.stream", after: 0, wait: nil)
            if answer == nil { await pause(0.25) }
        }
        let changes = try #require(answer, "the restarted server was not reached in 10 s")
        for w in 0..<writers {
            guard let last = acknowledged.last(w) else { continue }
            let entry = changes.entries.first { $0.key == "writer\(w)" }
            let value = entry?.value.flatMap { UbiquityWireValue.decode($0)?.value }
            guard case .integer(let stored)? = value, let v = stored.int64Value else {
                Issue.record("writer\(w): no value after the restart")
                continue
            }
            #expect(v == Int64(last) || v == Int64(last) + 1, "writer\(w): acknowledged \(last), the server holds \(v)")
        }
        let check = try server.check()
        #expect(check.status == 0, "\(check.stderr)")
    }
}

/// What ``writeOwnKey(_:of:through:token:until:acknowledged:refusals:)`` writers saw.
final class Acknowledged: @unchecked Sendable {
    private let lock = NSLock()
    private var last: [Int: Int] = [:]
    private var total = 0
    private var failures = 0
    private var odd: [String] = []
    /// A commit the server acknowledged.
    func record(writer: Int, value: Int) { lock.withLock { last[writer] = value; total += 1 } }
    /// An attempt that got no answer was found to have landed (the server holds it).
    func landed(writer: Int, value: Int) { lock.withLock { last[writer] = max(last[writer] ?? 0, value) } }
    /// An attempt that got no answer.
    func failed() { lock.withLock { failures += 1 } }
    private var refusedValues: [Int: Set<Int>] = [:]
    /// An attempt the server answered with "not applied" (503).
    func refused(writer: Int, value: Int) { lock.withLock { _ = refusedValues[writer, default: []].insert(value) } }
    /// The values of writer `w` the server said it did not apply.
    func refused(_ w: Int) -> Set<Int> { lock.withLock { refusedValues[w] ?? [] } }
    /// How many attempts were answered "not applied".
    var refusedCount: Int { lock.withLock { refusedValues.values.reduce(0) { $0 + $1.count } } }
    /// Something a correct server never answers.
    func anomaly(_ text: String) { lock.withLock { odd.append(text) } }
    /// The last value of writer `w` the server is known to hold.
    func last(_ w: Int) -> Int? { lock.withLock { last[w] } }
    /// Acknowledged commits.
    var count: Int { lock.withLock { total } }
    /// Attempts without an answer.
    var failureCount: Int { lock.withLock { failures } }
    var anomalies: [String] { lock.withLock { odd } }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    func clear() { lock.withLock { value = false } }
    var isSet: Bool { lock.withLock { value } }
}
