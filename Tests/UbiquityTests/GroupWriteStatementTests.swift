import NIOCore
import PostgresNIO
import Testing
import UbiquityBackend
@testable import UbiquityPostgres

/// What a group's write statement binds for the commit log (schema 5): each row's keys as a
/// slice of one flat array, found again by a reader a few commits behind (``ChangesStatement``).
@Suite("PostgreSQL: a group's write names each commit's keys in its log row")
struct GroupWriteStatementTests {
    struct Job: CommitJob {
        var account = "acct"
        var store: String
        var changes: [CheckedChange]
        var tokenHash: [UInt8]? = nil
    }

    static func job(_ store: String, _ keys: [String]) -> Job {
        Job(store: store, changes: keys.map { CheckedChange(key: $0, base: 0, bytes: Array("v".utf8)) })
    }

    /// An array parameter as PostgreSQL reads it.
    static func decoded<E: BinaryArrayElement, D: PostgresDecodable>(_ array: BinaryArray<E>, as type: D.Type) throws -> D
    where D._DecodableType == D {
        var buffer = ByteBuffer()
        array.encode(into: &buffer, context: .default)
        return try D(from: &buffer, type: BinaryArray<E>.psqlType, format: .binary, context: .default)
    }

    @Test("each row's slice of the keys is its own commit's, across stores; a commit whose keys pass 256 bytes names none")
    func rowsNameTheirOwnKeys() throws {
        let head = StoreHead(revision: 7, count: 0, total: 0, tombstones: 0, horizon: 0)
        let exactly256 = (0..<4).map { "edge-\($0)-" + String(repeating: "x", count: 57) }      // 4 × 64 bytes
        let over256 = (0..<5).map { "long-\($0)-" + String(repeating: "é", count: 26) }       // 5 × 59 bytes
        let s = [Self.job("s", ["a"]), Self.job("s", ["b", "c"]), Self.job("s", over256), Self.job("s", ["d"]), Self.job("s", exactly256)]
        let t = [Self.job("t", ["e", "f", "g"]), Self.job("t", ["h"])]
        let decisions = [
            StoreDecision(s, 0..<s.count, account: "acct", store: "s", head: head, current: [:], validTokens: nil, quota: nil, others: nil),
            StoreDecision(t, 0..<t.count, account: "acct", store: "t", head: head, current: [:], validTokens: nil, quota: nil, others: nil),
        ]
        let statement = GroupWriteStatement(decisions, channel: "wake")
        let stores = try Self.decoded(statement.logs.s, as: [String].self)
        let revisions = try Self.decoded(statement.logs.r, as: [Int64].self)
        let counts = try Self.decoded(statement.logs.n, as: [Int32].self)
        let starts = try Self.decoded(statement.logs.ks, as: [Int32].self)
        let changed = try Self.decoded(statement.changed, as: [String].self)
        #expect(stores == ["s", "s", "s", "s", "s", "t", "t"])
        #expect(revisions == [8, 9, 10, 11, 12, 8, 9])
        #expect(counts == [1, 2, 5, 1, 4, 3, 1])
        // PostgreSQL slices `changed[start:start + count - 1]`, counting from 1; 0 names none.
        let named = zip(starts, counts).map { start, count in
            start == 0 ? nil : Array(changed[Int(start) - 1 ..< Int(start) - 1 + Int(count)])
        }
        #expect(named == [["a"], ["b", "c"], nil, ["d"], exactly256, ["e", "f", "g"], ["h"]])
        #expect(changed.count == 1 + 2 + 1 + 4 + 3 + 1, "the long commit's keys are not bound at all")
    }
}
