import Foundation
import LookalikeStrings
import OpenDefaultsUbiquity
import PropertyList
import Testing
import TestSupport

/// The key-value store keeps keys and values that look alike but differ in
/// their scalars, on both machines and on the server, as Apple's does.
@Suite("ubiquity: lookalike keys between machines", .offThePool, .exclusive(.servers), .timeLimit(.minutes(10)), .serialized)
struct LiteralKeySyncTests {
    static let store = "com.example.lookalike"

    @Test("keys set on A with the ubiquity tool arrive on B with every key's and value's scalars", arguments: Backend.available)
    func acrossMachines(backend: Backend) async throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let a = try Machine("a")
        try a.login(server, token: token)
        var gen = Lookalikes()
        var written: [LiteralString: PropertyList] = [:]
        for (key, value) in gen.dictionary(keyLimit: 40) {
            let plain = Lookalikes.integersAsStrings(value)
            let text = String(decoding: plain.encoded(as: .openStep), as: UTF8.self)
            let r = try a.run(["set", "--store", Self.store, key.string] + (plain.kind == .string ? ["-string", plain.stringValue!] : [text]))
            #expect(r.status == 0, "seed \(gen.seed): set \(Lookalikes.describe(.string(key.string))): \(r.stderr)")
            written[key] = plain
        }
        // Two lookalike keys in one commit, from the API on a third machine (under a prefix the
        // generator never makes: its own keys include U+0340 and U+0300 alone, and a key A set
        // first would win over this fresh store's write as a conflict).
        let folder = try TemporaryFolder("api")
        let c = apiStore(Self.store, server: server, token: token, folder: folder)
        c.set("tone", forKey: "api:\u{340}")
        c.set("grave", forKey: "api:\u{300}")
        written["api:\u{340}"] = "tone"
        written["api:\u{300}"] = "grave"
        try await c.synchronizeWithServer()
        // B is a fresh machine: its initial sync brings everything.
        let bFolder = try TemporaryFolder("b")
        let b = apiStore(Self.store, server: server, token: token, folder: bFolder, watches: false)
        try await b.synchronizeWithServer()
        #expect(b.propertyLists.count == written.count, "seed \(gen.seed): B has \(b.propertyLists.count) of \(written.count)")
        #expect(Lookalikes.sameScalars(.dictionary(b.propertyLists), .dictionary(written)),
                "seed \(gen.seed): B holds \(Lookalikes.describe(.dictionary(b.propertyLists)))")
        // A's tool lists both grave accents as two keys.
        #expect(await settle(10) { (try? a.run("get", "--store", Self.store, "api:\u{340}").stdout) == "tone\n" })
        let grave = try a.run("get", "--store", Self.store, "api:\u{300}")
        #expect(grave.stdout == "grave\n")
        #expect(try server.check().status == 0)
    }

    @Test("ubiquity get prints text as UTF-8, as defaults read prints a value, and escapes control characters", arguments: [Backend.sqlite])
    func printsUTF8(backend: Backend) throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let a = try Machine("a")
        try a.login(server, token: token)
        #expect(try a.run("set", "--store", Self.store, "greeting", "-string", "hello wörld").status == 0)
        let r = try a.run("get", "--store", Self.store, "greeting")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Array(r.stdout.unicodeScalars) == Array("hello wörld\n".unicodeScalars))
        #expect(try a.run("set", "--store", Self.store, "list", "-array", "wörld", "-int", "-3").status == 0)
        #expect(try a.run("get", "--store", Self.store, "list").stdout == "(\n    \"wörld\",\n    \"-3\"\n)\n")
        #expect(try a.run("set", "--store", Self.store, "evil", "-string", "a\u{1B}[2Jb\nc").status == 0)
        #expect(try a.run("get", "--store", Self.store, "evil").stdout == "a\\u{1B}[2Jb\nc\n")
    }
}
