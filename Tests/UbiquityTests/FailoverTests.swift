import Foundation
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing
import TestSupport

/// A primary and a synchronous streaming standby (two throw-away clusters, `pg_basebackup`),
/// the sync server given both; the primary dies and the standby is promoted while a client writes.
@Suite("ubiquity serve on PostgreSQL: failover to a promoted standby", .offThePool, .exclusive(.servers), .timeLimit(.minutes(5)), .requires(.postgres, .curl, .prometheusParser))
struct FailoverTests {
    @Test("writes resume within 5 s of the promotion, no acknowledged write is lost, a watcher catches up from its cursor")
    func promotion() async throws {
        let primary = try PostgresCluster.replicatingPrimary()
        let created = try primary.createDatabase()
        let standby = try PostgresCluster.standby(of: primary)
        try primary.requireSynchronousStandby()
        let name = PostgresCluster.databaseName(created)
        let url = "postgres:///\(name)?host=\(primary.folder),\(standby.folder)&user=\(primary.user)"
        let metricsPort = ObservabilityTests.freePort()
        let server = try SyncServer(postgresURL: url, extraArguments: ["--metrics", "127.0.0.1:\(metricsPort)"])
        let token = try server.addAccount("alice")
        let t = HTTPUbiquityTransport(account: server.account(token: token))
        let store = "com.example.failover"
        // A watcher as the client library is one: it asks again from its cursor when a stream ends or fails.
        let seen = Locked<Int64>(0)
        let following = Task {
            while !Task.isCancelled {
                do {
                    for try await answer in t.events(store: store, after: seen.value) { seen.mutate { $0 = max($0, answer.revision) } }
                } catch {
                    try? await Task.sleep(for: .milliseconds(200))
                }
            }
        }
        defer { following.cancel() }
        let acknowledged = Locked<[(key: Int, at: ContinuousClock.Instant)]>([])
        let refused = Locked<Int>(0)
        let stop = Flag()
        let writer = Task {
            var i = 0
            while !stop.isSet {
                i += 1
                let r = try? await commit(t, store, "k\(i)", base: 0, .integer(.init(Int64(i))))
                if r?.results.first?.status == .applied {
                    acknowledged.mutate { $0.append((i, .now)) }
                } else {
                    refused.mutate { $0 += 1 }
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
        }
        // Synchronous commits wait for the standby: on a loaded machine a few a second.
        let before = await settle(180) { acknowledged.value.count >= 20 }
        #expect(before, "writes before the failover: \(acknowledged.value.count) acknowledged, \(refused.value) refused")
        try #require(before)
        // The primary dies; the standby is promoted.
        let clock = ContinuousClock()
        var phase = clock.now
        let died = clock.now
        primary.stop(immediate: true)
        try standby.promote()
        let promoted = ContinuousClock.now
        print("failover: the primary stopped and the standby promoted in \(promoted - died)")
        phase = promoted
        _ = phase
        #expect(await settle(20) { acknowledged.value.contains { $0.at > promoted } }, "no write after the promotion")
        let resumed = acknowledged.value.first { $0.at > promoted }.map { $0.at - promoted }
        let sinceDeath = acknowledged.value.first { $0.at > died }.map { $0.at - died }
        print("failover: writes resumed \(resumed.map { "\($0)" } ?? "never") after the promotion (\(sinceDeath.map { "\($0)" } ?? "never") after the primary died); \(refused.value) attempts refused meanwhile; \(acknowledged.value.count) acknowledged")
        #expect(resumed.map { $0 <= .seconds(5) } == true, "writes resumed after \(String(describing: resumed))")
        let countAfter = acknowledged.value.count
        #expect(await settle(60) { acknowledged.value.count >= countAfter + 10 })
        stop.set()
        _ = await writer.value
        // Every acknowledged write is in the promoted server's database.
        let answer = try await t.changes(store: store, after: 0, wait: nil)
        let keys = Set(answer.entries.map(\.key))
        let lost = acknowledged.value.map(\.key).filter { !keys.contains("k\($0)") }
        #expect(lost.isEmpty, "acknowledged and lost: \(lost.prefix(10))")
        // The watcher reaches the final revision from its cursor.
        #expect(await settle(20) { seen.value >= answer.revision }, "the watcher stopped at \(seen.value) of \(answer.revision)")
        #expect(try server.check().status == 0)
        // The database's metrics saw the move.
        let metrics = try MetricsEndpoint(port: metricsPort).scrape()
        #expect(metrics["ubiquity_database_failovers_total"]?[""] == 1, "\(metrics.filter { $0.key.hasPrefix("ubiquity_database") })")
        #expect(metrics["ubiquity_database_reachable"]?[""] == 1)
        #expect((metrics["ubiquity_database_connection_wait_seconds_count"]?[""] ?? 0) > 0)
        #expect(metrics["ubiquity_database_operations"]?[""] != nil)
    }
}
