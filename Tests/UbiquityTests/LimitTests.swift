import Foundation
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing
import TestSupport

/// The limits, exact to the byte, in the store and on the server.
@Suite("ubiquity: limits of 1,024 keys, 1 MB and 64-byte keys", .offThePool, .exclusive(.servers), .timeLimit(.minutes(10)), .serialized)
struct LimitTests {
    /// Data whose binary property list is exactly `bytes` long.
    static func data(ofEncodedSize bytes: Int) -> PropertyList {
        var n = bytes - 40
        while UbiquityLimits.size(of: .data(Data(count: n))) < bytes { n += 1 }
        while UbiquityLimits.size(of: .data(Data(count: n))) > bytes { n -= 1 }
        let v = PropertyList.data(Data(repeating: 7, count: n))
        precondition(UbiquityLimits.size(of: v) == bytes)
        return v
    }

    @Test("typed getters coerce as Defaults does: a NaN or out-of-range real is Int64.min, a real truncates, strings as NSString")
    func typedGetters() throws {
        let folder = try TemporaryFolder("typed")
        let store = UbiquitousKeyValueStore(storeIdentifier: "com.example.typed", configuration: .init(dataDirectory: folder.path))
        for (key, value) in [("big", PropertyList.real(1e20)), ("small", .real(-1e20)), ("nan", .real(.nan)), ("negative", .real(-2.7)),
                             ("text", .string("  42abc")), ("yes", .string("YES")), ("flag", .boolean(true))] {
            try store.setOrThrow(value, forKey: key)
        }
        #expect(store.longLong(forKey: "big") == .min && store.longLong(forKey: "small") == .min && store.longLong(forKey: "nan") == .min)
        #expect(store.longLong(forKey: "negative") == -2 && store.longLong(forKey: "text") == 42 && store.longLong(forKey: "flag") == 1)
        #expect(store.bool(forKey: "yes") && store.bool(forKey: "negative") && !store.bool(forKey: "absent"))
        #expect(store.double(forKey: "text") == 42 && store.double(forKey: "flag") == 1 && store.double(forKey: "absent") == 0)
    }

    @Test("keys: 64 bytes of UTF-8 pass, 65 are refused (multibyte characters counted in bytes)")
    func keyLength() async throws {
        let folder = try TemporaryFolder("keys")
        let store = UbiquitousKeyValueStore(storeIdentifier: "com.example.keys", configuration: .init(dataDirectory: folder.path))
        let log = ChangeLog(store)
        let key64 = String(repeating: "€", count: 21) + "a"          // 63 + 1 bytes
        let key65 = String(repeating: "€", count: 21) + "ab"         // 65 bytes, 23 characters
        #expect(key64.utf8.count == 64 && key65.utf8.count == 65)
        try store.setOrThrow(.string("ok"), forKey: key64)
        #expect(throws: UbiquityError.self) { try store.setOrThrow(.string("no"), forKey: key65) }
        #expect(throws: UbiquityError.self) { try store.setOrThrow(.string("no"), forKey: "") }
        store.set("no", forKey: key65)
        #expect(store.string(forKey: key65) == nil)
        #expect(await settle { log.all == [UbiquityExternalChange(reason: .quotaViolationChange, changedKeys: [key65])] }, "\(log.all)")
        #expect(store.string(forKey: key64) == "ok")
    }

    @Test("values: 1,048,576 bytes pass, one more is refused; the store's total is 1,048,576")
    func valueAndTotalSize() throws {
        let folder = try TemporaryFolder("sizes")
        let store = UbiquitousKeyValueStore(storeIdentifier: "com.example.sizes", configuration: .init(dataDirectory: folder.path))
        let exact = Self.data(ofEncodedSize: UbiquityLimits.maximumValueBytes)
        let over = Self.data(ofEncodedSize: UbiquityLimits.maximumValueBytes + 1)
        #expect(throws: UbiquityError.valueTooLarge(key: "big", bytes: 1_048_577)) { try store.setOrThrow(over, forKey: "big") }
        try store.setOrThrow(exact, forKey: "big")
        // The store is full: any other value breaks the total.
        #expect(throws: UbiquityError.self) { try store.setOrThrow(.boolean(true), forKey: "more") }
        // Replacing the value frees its bytes.
        try store.setOrThrow(Self.data(ofEncodedSize: 1_048_576 - 43), forKey: "big")
        try store.setOrThrow(.integer(1), forKey: "small")   // 43 bytes: exactly full again
        #expect(UbiquityLimits.size(of: .integer(1)) == 43)
        #expect(throws: UbiquityError.self) { try store.setOrThrow(.integer(2), forKey: "third") }
        #expect(store.propertyList(forKey: "third") == nil)
    }

    @Test("keys: 1,024 pass, the 1,025th is refused")
    func keyCount() throws {
        let folder = try TemporaryFolder("count")
        let store = UbiquitousKeyValueStore(storeIdentifier: "com.example.count", configuration: .init(dataDirectory: folder.path))
        for i in 0..<1_024 { try store.setOrThrow(.integer(.init(Int64(i))), forKey: "k\(i)") }
        #expect(throws: UbiquityError.tooManyKeys(key: "k1024", count: 1_025)) { try store.setOrThrow(.integer(0), forKey: "k1024") }
        try store.setOrThrow(.integer(5), forKey: "k7")      // replacing is not adding
        try store.setOrThrow(nil, forKey: "k0")
        try store.setOrThrow(.integer(0), forKey: "k1024")   // room again
        #expect(store.propertyLists.count == 1_024)
    }

    @Test("the server enforces every limit inside its transaction and is unchanged after a refusal", arguments: Backend.available)
    func serverRefusals(backend: Backend) async throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let t = HTTPUbiquityTransport(account: server.account(token: token))
        let id = "com.example.limits"
        func commit(_ changes: [(String, PropertyList?)], base: Int64 = 0) async throws -> UbiquityCommitResponse {
            try await t.commit(store: id, UbiquityCommitRequest(changes: changes.map {
                UbiquityWireChange(key: $0.0, base: base, value: $0.1.map(UbiquityWireValue.encode))
            }))
        }
        // 1,024 keys in one commit pass.
        let r1 = try await commit((0..<1_024).map { ("k\($0)", PropertyList.integer(.init(Int64($0)))) })
        #expect(r1.refusal == nil && r1.revision == 1)
        // The 1,025th is refused, with the whole commit.
        let r2 = try await commit([("extra", .integer(1)), ("k5", .integer(99))], base: 0)
        #expect(r2.refusal == "the store would hold 1025 keys; at most 1024 are allowed", "\(r2.refusal ?? "nil")")
        #expect(r2.results.allSatisfy { $0.status == .refused })
        // 65-byte key.
        let long = String(repeating: "é", count: 32) + "x"
        let r3 = try await commit([(long, .integer(1))])
        #expect(r3.refusal == "the key \"\(long)\" is 65 bytes of UTF-8; keys are 1 to 64", "\(r3.refusal ?? "nil")")
        // One value over 1 MB.
        let r4 = try await commit([("k1", Self.data(ofEncodedSize: 1_048_577))], base: 1)
        #expect(r4.refusal == "the value for key \"k1\" is 1048577 bytes as a binary property list; at most 1048576 are allowed",
                "\(r4.refusal ?? "nil")")
        let after = try await t.changes(store: id, after: 0, wait: nil)
        #expect(after.revision == 1)
        #expect(after.entries.count == 1_024)
        #expect(after.entries.allSatisfy { $0.revision == 1 })
        // Room for exactly 1 MB in total: remove all, then fill to the byte.
        _ = try await commit((0..<1_024).map { ("k\($0)", nil) }, base: 1)
        let full = try await commit([("big", Self.data(ofEncodedSize: 1_048_576))], base: 0)
        #expect(full.refusal == nil)
        let more = try await commit([("one", .boolean(true))])
        // 1 MB and the new key's entry (its key and a boolean, as the store counts them).
        #expect(more.refusal == "the store's values would be 1048618 bytes together; at most 1048576 are allowed", "\(more.refusal ?? "nil")")
        #expect(try server.check().status == 0)
    }

    @Test("a write the server refuses is reported as QuotaViolationChange and the machine takes the server's values back", arguments: Backend.available)
    func serverRefusalReachesTheStore(backend: Backend) async throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let fa = try TemporaryFolder("a"), fb = try TemporaryFolder("b")
        let id = "com.example.quota"
        let a = apiStore(id, server: server, token: token, folder: fa, watches: false)
        // b's uploads can be held back (its transport "offline"), so that its 100 writes reach the
        // server as one commit whatever the machine's speed (uploads are coalesced over 2 ms only):
        // while held, only a commit that carries all 100 goes through. (An upload that read the
        // pending writes part-way through the loop could otherwise reach the transport just
        // after the switch opened, on a loaded machine, and commit a few of them alone.)
        let offline = Flag()
        let b = UbiquitousKeyValueStore(storeIdentifier: id, configuration: .init(
            dataDirectory: fb.path, transport: { OfflineSwitch(base: HTTPUbiquityTransport(account: $0), offline: offline, unlessAtLeast: 100) },
            account: server.account(token: token), watches: false))
        // Each machine alone is within the limits; together they are not.
        for i in 0..<600 { try a.setOrThrow(.integer(.init(Int64(i))), forKey: "a\(i)") }
        try await a.synchronizeWithServer()
        try await b.synchronizeWithServer()   // b's initial sync: 600 keys
        let log = ChangeLog(b)
        // b goes on without hearing of a's next keys.
        for i in 600..<1_000 { try a.setOrThrow(.integer(.init(Int64(i))), forKey: "a\(i)") }
        try await a.synchronizeWithServer()
        offline.set()
        for i in 0..<100 { try b.setOrThrow(.integer(.init(Int64(i))), forKey: "b\(i)") }   // 700 locally: fine
        // The one commit of all 100 is refused, whichever carries it: this synchronize (which
        // then throws) or the engine's own retry of the failed upload, if it came first. A
        // synchronize that waited behind a held-back partial upload fails with it: it is asked again.
        for attempt in 1...5 {
            do { try await b.synchronizeWithServer(); break } catch {
                if error.description.contains("the test holds uploads back"), attempt < 5 { continue }
                #expect(error.description.contains("the store would hold 1100 keys; at most 1024 are allowed"), "\(error)")
                break
            }
        }
        offline.clear()
        #expect(await settle { log.all.contains { $0.reason == .quotaViolationChange && $0.changedKeys.count == 100 } }, "\(log.all.map(\.reason))")
        #expect(b.propertyList(forKey: "b0") == nil, "the refused write is undone locally")
        try await b.synchronizeWithServer()
        #expect(b.propertyLists.count == 1_000)
        #expect(try server.check().status == 0)
    }
}

/// A transport that fails every commit as unreachable while `offline` is set, except one of
/// at least `unlessAtLeast` changes when that is given.
struct OfflineSwitch: UbiquityTransport {
    let base: any UbiquityTransport
    let offline: Flag
    var unlessAtLeast: Int? = nil
    func commit(store: String, _ request: UbiquityCommitRequest) async throws(UbiquityError) -> UbiquityCommitResponse {
        if offline.isSet, request.changes.count < (unlessAtLeast ?? Int.max) { throw .unreachable("offline (the test holds uploads back)") }
        return try await base.commit(store: store, request)
    }
    func changes(store: String, after: Int64, wait: Duration?) async throws(UbiquityError) -> UbiquityChangesResponse {
        try await base.changes(store: store, after: after, wait: wait)
    }
    func events(store: String, after: Int64) -> AsyncThrowingStream<UbiquityChangesResponse, any Error> {
        base.events(store: store, after: after)
    }
}
