import HTTPMessages
import Foundation
import OpenDefaultsUbiquity
import PropertyList
import SQLiteNIO
import Testing
import TestSupport
@testable import UbiquityServer
import UbiquityBackend
import UbiquitySQLite

/// Lines a service logged.
final class LogLines: @unchecked Sendable {
    let lock = NSLock()
    var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

/// Issue 25 item 6: damage found while serving is a 503 and a log line, never a partial answer.
@Suite("ubiquity serve on SQLite: a database damaged while served", .offThePool, .exclusive(.servers), .timeLimit(.minutes(10)))
struct CorruptionTests {
    @Test("pages damaged after start: a read answers 503 (the whole store or nothing), never some of the keys")
    func damagedWhileServed() async throws {
        let folder = try TemporaryFolder("damage")
        let backend = try await SQLiteBackend.open(directory: folder.path)
        let logged = LogLines()
        let service = UbiquityService(backend: backend, allowedHosts: nil, log: { logged.append($0) })
        let token = UbiquityService.newToken()
        _ = try await backend.createAccount(name: "alice", tokenName: "default", tokenHash: UbiquityService.hash(token: token))
        let account = try #require(try await backend.account(tokenHash: UbiquityService.hash(token: token)))
        let value = PropertyList.string(String(repeating: "v", count: 3_000)).encodedBinary
        for batch in 0..<4 {
            let changes = (0..<40).map { CheckedChange(key: "k\(batch)-\($0)", base: 0, bytes: value) }
            _ = try await backend.commit(account: account.id, store: "com.example.damage\(batch)", changes: changes)
        }
        // Everything into the main file, then bytes of its middle pages overwritten behind SQLite's back.
        let side = try await SQLiteConnection.open(storage: .file(path: folder.path + "/ubiquity.sqlite"))
        _ = try await side.query("PRAGMA wal_checkpoint(TRUNCATE)", [])
        try await side.close()
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: folder.path + "/ubiquity.sqlite"))
        let size = try file.seekToEnd()
        for page in stride(from: UInt64(8), to: size / 4096 - 2, by: 3) {
            try file.seek(toOffset: page * 4096 + 100)
            file.write(Data(repeating: 0xA5, count: 3_000))
        }
        try file.close()
        var statuses: [Int] = []
        for batch in 0..<4 {
            let answer = await service.respond(to: ServerRequest(method: "GET", path: "/v1/stores/com.example.damage\(batch)/changes",
                                                                 headers: ["Authorization": "Bearer \(token)"]))
            statuses.append(answer.status)
            if answer.status == 200 {
                let response = try JSONDecoder().decode(UbiquityChangesResponse.self, from: Data(answer.body))
                #expect(response.entries.count == 40, "store \(batch): \(response.entries.count) of 40 keys answered 200")
            } else {
                let text = String(decoding: answer.body, as: UTF8.self)
                #expect(answer.status == 503 && text.contains("the database is damaged"), "\(answer.status) \(text)")
            }
        }
        print("damaged pages: \(statuses)")
        #expect(statuses.contains(503), "the damage was never noticed: \(statuses)")
        // Logged (at most a line a second: the reads after the first within that second are counted, not printed).
        #expect(!logged.all.isEmpty && logged.all.count <= statuses.filter { $0 == 503 }.count, "\(logged.all)")
        #expect(logged.all.allSatisfy { $0.hasPrefix("the database is damaged") }, "\(logged.all)")
        try? await backend.close()
    }
}
