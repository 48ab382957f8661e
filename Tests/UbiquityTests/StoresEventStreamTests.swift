import Foundation
import HTTPMessages
import PlatformIO
import SharedTables
import Synchronization
import UbiquityBackend
import OpenDefaultsUbiquity
@testable import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing
import TestSupport
@testable import UbiquityServer

/// The events one stream of several stores delivered, in order, as (store, revision).
final class ReceivedOfStores: @unchecked Sendable {
    let lock = NSLock()
    var events: [(store: String, answer: UbiquityChangesResponse)] = []
    var failure: (any Error)? = nil

    var all: [(store: String, answer: UbiquityChangesResponse)] { lock.withLock { events } }
    func revisions(of store: String) -> [Int64] { all.filter { $0.store == store }.map(\.answer.revision) }

    /// Follows `stream` in a task until it ends.
    func follow(_ stream: AsyncThrowingStream<(store: String, changes: UbiquityChangesResponse), any Error>) -> Task<Void, Never> {
        Task {
            do {
                for try await event in stream { lock.withLock { events.append((event.store, event.changes)) } }
            } catch {
                lock.withLock { failure = error }
            }
        }
    }
}

@Suite("ubiquity serve: one event stream for several stores (GET /v1/events)", .offThePool, .exclusive(.servers), .timeLimit(.minutes(10)), .serialized)
struct StoresEventStreamTests {
    @Test("the stream answers each store at once, in the order asked, then sends each commit naming its store",
          arguments: Backend.available)
    func commitsOfSeveralStores(backend: Backend) async throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let t = HTTPUbiquityTransport(account: server.account(token: token))
        _ = try await commit(t, "com.example.b", "early", base: 0, .string("b1"))
        _ = try await commit(t, "com.example.b", "later", base: 0, .string("b2"))
        let received = ReceivedOfStores()
        // b is followed from revision 1: its first answer brings revision 2 alone.
        let follower = received.follow(t.events(stores: [("com.example.a", 0), ("com.example.b", 1)]))
        defer { follower.cancel() }
        #expect(await settle(30) { received.all.count == 2 }, "first answers: \(received.all.map(\.store)), \(String(describing: received.failure))")
        #expect(received.all.map(\.store) == ["com.example.a", "com.example.b"])
        #expect(received.all.map(\.answer.revision) == [0, 2])
        #expect(received.all.last?.answer.entries.map(\.key) == ["later"])
        for i in 0..<3 {
            _ = try await commit(t, "com.example.a", "a\(i)", base: 0, .integer(.init(Int64(i))))
            _ = try await commit(t, "com.example.b", "b\(i)", base: 0, .integer(.init(Int64(i))))
        }
        // Another store of the account is not sent.
        _ = try await commit(t, "com.example.c", "c", base: 0, .string("not followed"))
        #expect(await settle(30) { received.all.count == 8 }, "received \(received.all.map { "\($0.store)@\($0.answer.revision)" })")
        #expect(received.revisions(of: "com.example.a") == [0, 1, 2, 3])
        #expect(received.revisions(of: "com.example.b") == [2, 3, 4, 5])
        #expect(received.all.dropFirst(2).map { $0.answer.entries.map(\.key) } == (0..<3).flatMap { [["a\($0)"], ["b\($0)"]] })
        #expect(!received.all.contains { $0.store == "com.example.c" })
        #expect(received.failure == nil)
    }

    @Test("a burst of commits to one store reaches the stream whole, whether sent one by one or read again")
    func burst() async throws {
        let server = try SyncServer(.sqlite)
        let token = try server.addAccount("alice")
        // A connection for each commit: with the default 4, the last of 100 queued commits could
        // wait longer than the client's 2 s for a connection on a loaded machine.
        let t = HTTPUbiquityTransport(account: server.account(token: token), maximumConnections: 101)
        let received = ReceivedOfStores()
        let follower = received.follow(t.events(stores: [("com.example.quiet", 0), ("com.example.busy", 0)]))
        defer { follower.cancel() }
        #expect(await settle(30) { received.all.count == 2 })
        // More commits than a stream queues (64) at once: the stream may fall behind and read.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<100 {
                group.addTask { _ = try await commit(t, "com.example.busy", "k\(i)", base: 0, .integer(.init(Int64(i)))) }
            }
            try await group.waitForAll()
        }
        #expect(await settle(30) { received.revisions(of: "com.example.busy").last == 100 }, "busy: \(received.revisions(of: "com.example.busy"))")
        let keys = Set(received.all.filter { $0.store == "com.example.busy" }.flatMap { $0.answer.entries.map(\.key) })
        #expect(keys == Set((0..<100).map { "k\($0)" }))
        #expect(received.revisions(of: "com.example.busy") == received.revisions(of: "com.example.busy").sorted())
        #expect(received.revisions(of: "com.example.quiet") == [0])
    }

    @Test("the wire: each event's JSON names its store first; the server ends the stream after `wait`")
    func wireFormat() async throws {
        let server = try SyncServer(.sqlite)
        let token = try server.addAccount("alice")
        let t = HTTPUbiquityTransport(account: server.account(token: token))
        _ = try await commit(t, "com.example.one", "k", base: 0, .string("v"))
        let r = try runProcess("/usr/bin/curl", ["-s", "-N", "-m", "10", "-H", "Authorization: Bearer \(token)",
                                                 server.url + "/v1/events?stores=com.example.one:0,com.example.two&wait=1"])
        #expect(r.status == 0, "curl ended with \(r.status) (28: the server did not end the stream)")
        #expect(r.stdout.hasSuffix("}\n\n"), "body: \(r.stdout)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 4 && lines[0] == "id: 1" && lines[2] == "id: 0", "body: \(r.stdout)")
        #expect(lines.count == 4 && lines[1].hasPrefix("data: {\"store\":\"com.example.one\",\"") && lines[1].contains("\"revision\":1"), "body: \(r.stdout)")
        #expect(lines.count == 4 && lines[3].hasPrefix("data: {\"store\":\"com.example.two\",\"") && lines[3].contains("\"revision\":0"), "body: \(r.stdout)")
        for line in lines where line.hasPrefix("data: ") {
            // Each is still a changes answer, and parses as one.
            #expect((try? JSONDecoder().decode(UbiquityChangesResponse.self, from: Data(line.dropFirst(6).utf8))) != nil)
        }
    }

    @Test("bad stores are refused before anything is read; so is a request without a token or from a web page")
    func refusals() async throws {
        let server = try SyncServer(.sqlite)
        let alice = try server.addAccount("alice")
        let auth = ["Authorization": "Bearer \(alice)"]
        func status(_ query: String, _ headers: [String: String]? = nil) throws -> (Int, String) {
            let r = try rawRequest(server, path: "/v1/events" + query, headers: headers ?? auth)
            return (r.status, r.body)
        }
        let many = (0...UbiquityLimits.maximumStreamStores).map { "s\($0):0" }.joined(separator: ",")
        let cases: [(String, String)] = [
            ("", "stores is required"),
            ("?stores=", "stores is required"),
            ("?stores=\(many)&wait=0", "at most 16"),
            ("?stores=a:0,a:3&wait=0", "a twice"),
            ("?stores=a:0,.hidden:0&wait=0", ".hidden"),
            ("?stores=a:0,,b:0&wait=0", "store"),
            ("?stores=a:-1&wait=0", "0 or more"),
            ("?stores=a:x&wait=0", "0 or more"),
            ("?stores=a:0&wait=301", "wait must be seconds from 0 to 300"),
        ]
        for (query, words) in cases {
            let (code, body) = try status(query)
            #expect(code == 400 && body.contains(words), "\(query): \(code) \(body)")
        }
        #expect(try status("?stores=a:0&wait=0", [:]).0 == 401)
        var hostile = auth
        hostile["Origin"] = "https://evil.example"
        #expect(try status("?stores=a:0&wait=0", hostile).0 == 403)
        #expect(try rawRequest(server, method: "POST", path: "/v1/events?stores=a:0", headers: auth).status == 405)
        #expect(try status("?stores=a:0,b:0&wait=0").0 == 200)
    }

    @Test("the hub files a stream of several stores under each, counts it once, and rereads only the store that needs it")
    func hubFiling() async throws {
        let hub = ChangeHub()
        let stream = hub.openStream(account: "a", stores: ["x", "y"])
        func commit(_ store: String, _ r: Int64) -> ChangeHub.Commit { ChangeHub.Commit(store: store, revision: r, encoded: Array("{}".utf8)) }
        for (store, r) in [("x", Int64(1)), ("y", 1), ("x", 2)] {
            hub.published(account: "a", store: store, revision: r, since: hub.stamp(account: "a", store: store)) { commit(store, r) }
        }
        hub._checkInvariants()
        #expect(hub.waiting == 1 && hub.openStreamCount == 1)
        let first = await stream.next()
        #expect(first?.commits.map { "\($0.store)\($0.revision)" } == ["x1", "y1", "x2"] && first?.rereads == [])
        // Another server's commit of y makes the stream read y, not x.
        hub.wake(.store(account: "a", store: "y", revision: 9))
        #expect(await stream.next()?.rereads == ["y"])
        hub.wake(.everything)
        #expect(await stream.next()?.rereads == ["x", "y"])
        // Another account's store of the same name does not reach it.
        hub.published(account: "b", store: "x", revision: 1, since: hub.stamp(account: "b", store: "x")) { commit("x", 1) }
        #expect(stream.state.withLock { $0.pending.isEmpty && $0.rereads.isEmpty })
        hub.closeStream(stream)
        hub._checkInvariants()
        #expect(await stream.next() == nil)
        #expect(hub.waiting == 0 && hub.streams.withLock { $0.isEmpty })
    }

    @Test("streams end at their deadlines, one task for all: an end taken out first is never called, and the task stops when none is left")
    func deadlines() async throws {
        let deadlines = StreamDeadlines()
        let called = Lock<[String]>([])
        let started = ContinuousClock.now
        let soon = deadlines.add(after: .milliseconds(150)) { called.withLock { $0.append("soon") } }
        let removed = deadlines.add(after: .milliseconds(200)) { called.withLock { $0.append("removed") } }
        _ = deadlines.add(after: .milliseconds(400)) { called.withLock { $0.append("later") } }
        #expect(deadlines.count == 3)
        deadlines.remove(removed)
        #expect(deadlines.count == 2)
        #expect(await settle(30) { called.withLock { $0 } == ["soon", "later"] }, "\(called.withLock { $0 })")
        // None came early (each is at most one tick late, which a loaded machine may stretch).
        #expect(ContinuousClock.now - started >= .milliseconds(400))
        deadlines.remove(soon)   // already called: nothing
        #expect(deadlines.count == 0)
        #expect(await settle(30) { !deadlines.state.withLock { $0.sweeping } })
        // A deadline after the task stopped starts it again.
        _ = deadlines.add(after: .zero) { called.withLock { $0.append("again") } }
        #expect(await settle(30) { called.withLock { $0.last } == "again" })
        #expect(StreamDeadlines.ticks(.milliseconds(100), roundingUp: true) == 1)
        #expect(StreamDeadlines.ticks(.milliseconds(101), roundingUp: true) == 2)
        #expect(StreamDeadlines.ticks(.milliseconds(199), roundingUp: false) == 1)
    }

    @Test("the frame splices the store into the object, also into an object with no members")
    func frames() {
        let chunk = ServerSentEvent.frame(store: "s.t", revision: 7, data: Array(#"{"revision":7}"#.utf8))
        #expect(String(decoding: chunk.bytes, as: UTF8.self) == "id: 7\ndata: {\"store\":\"s.t\",\"revision\":7}\n\n")
        let empty = ServerSentEvent.frame(store: "s", revision: 0, data: Array("{}".utf8))
        #expect(String(decoding: empty.bytes, as: UTF8.self) == "id: 0\ndata: {\"store\":\"s\"}\n\n")
    }
}
