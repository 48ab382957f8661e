import Foundation
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing
import TestSupport

/// Issue 25 item 10: an account's stores and bytes together are bounded by a
/// configurable quota; a commit past it is refused whole (422, the quota named).
@Suite("ubiquity serve: per-account quotas of stores and bytes", .offThePool, .exclusive(.servers), .serialized, .timeLimit(.minutes(5)))
struct QuotaTests {
    static let quotaArguments = ["--quota-stores", "3", "--quota-bytes", "200000"]

    static func commit(_ t: HTTPUbiquityTransport, _ store: String, _ key: String, base: Int64 = 0, _ value: PropertyList?) async throws -> UbiquityCommitResponse {
        try await t.commit(store: store, UbiquityCommitRequest(changes: [
            UbiquityWireChange(key: key, base: base, value: value.map(UbiquityWireValue.encode))]))
    }

    @Test("the stores quota: three stores pass, a fourth is refused and not made; the bytes quota: growth past it is refused, shrinking always passes",
          arguments: Backend.available)
    func storesAndBytes(backend: Backend) async throws {
        let server = try SyncServer(backend, extraArguments: Self.quotaArguments)
        let token = try server.addAccount("alice")
        let t = HTTPUbiquityTransport(account: server.account(token: token))
        for i in 1...3 { #expect(try await Self.commit(t, "com.example.s\(i)", "k", .integer(1)).refusal == nil) }
        let fourth = try await Self.commit(t, "com.example.s4", "k", .integer(1))
        #expect(fourth.refusal == "quota \"stores\": the account would hold 4 stores; its quota is 3", "\(fourth.refusal ?? "nil")")
        #expect(fourth.results.allSatisfy { $0.status == .refused })
        #expect(try await t.changes(store: "com.example.s4", after: 0, wait: nil).entries.isEmpty)
        // Existing stores take more keys.
        #expect(try await Self.commit(t, "com.example.s1", "more", .string("x")).refusal == nil)
        // Bytes: 150,000 in s1, then 60,000 in s2 would pass 200,000.
        let big = try await Self.commit(t, "com.example.s1", "big", .data(Data(count: 150_000)))
        #expect(big.refusal == nil)
        let over = try await Self.commit(t, "com.example.s2", "big", .data(Data(count: 60_000)))
        #expect(over.refusal?.hasPrefix("quota \"bytes\": the account's stores would hold ") == true, "\(over.refusal ?? "nil")")
        #expect(over.refusal?.hasSuffix("bytes together; its quota is 200000") == true)
        // Removing from s1 frees room; then s2's write passes.
        let removed = try await Self.commit(t, "com.example.s1", "big", base: big.revision, nil)
        #expect(removed.refusal == nil)
        #expect(try await Self.commit(t, "com.example.s2", "big", .data(Data(count: 60_000))).refusal == nil)
        // The raw answer: 422 naming the quota.
        let raw = try curl(["-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
                            "--data-binary", #"{"changes":[{"key":"k","base":0,"value":null}]}"#, server.url + "/v1/stores/com.example.s5/commit"])
        #expect(raw.status == "422" && raw.body.contains(#"quota \"stores\""#), "\(raw.status) \(raw.body)")
        // Another account has its own quota.
        let bob = HTTPUbiquityTransport(account: server.account(token: try server.addAccount("bob")))
        #expect(try await Self.commit(bob, "com.example.s4", "k", .integer(1)).refusal == nil)
        #expect(try server.check().status == 0)
    }

    @Test("twelve new stores committed at once through two instances: exactly three are made",
          .requires(.postgres))
    func concurrentStores() async throws {
        let one = try SyncServer(.postgres, extraArguments: Self.quotaArguments)
        let two = try SyncServer(sharing: one)
        let token = try one.addAccount("alice")
        let transports = [one, two].map { HTTPUbiquityTransport(account: $0.account(token: token)) }
        let refusals = try await withThrowingTaskGroup(of: String?.self) { group in
            for i in 0..<12 {
                group.addTask { try await Self.commit(transports[i % 2], "com.example.race\(i)", "k", .integer(.init(Int64(i)))).refusal }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(refusals.filter { $0 == nil }.count == 3, "\(refusals)")
        #expect(refusals.compactMap { $0 }.allSatisfy { $0.hasPrefix("quota \"stores\"") }, "\(refusals)")
        #expect(try one.check().status == 0)
    }
}
