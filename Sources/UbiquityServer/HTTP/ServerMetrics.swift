import CoreMetrics
import PlatformIO
import SharedTables
import UbiquityBackend
import Synchronization

/// The sync server's metrics, through swift-metrics: whatever backend the
/// process bootstrapped (the `ubiquity` executable: Prometheus on its own
/// listener; none: nothing is recorded).
///
/// | metric | kind | labels |
/// |---|---|---|
/// | `ubiquity_requests_total` | counter | `route`, `status` |
/// | `ubiquity_request_duration_seconds` | histogram | `route` |
/// | `ubiquity_commits_total` | counter | `outcome` (`applied`, `conflict`, `quota`, `unavailable`, `unauthorized`, `invalid`) |
/// | `ubiquity_commit_duration_seconds` | histogram | |
/// | `ubiquity_conflicts_total` | counter | (keys refused for a stale base) |
/// | `ubiquity_quota_refusals_total` | counter | `quota` |
/// | `ubiquity_event_streams`, `ubiquity_long_polls` | gauge | (open now) |
/// | `ubiquity_fanout_seconds` | histogram | (a commit until a stream writes it) |
/// | `ubiquity_errors_total` | counter | `kind` (`database_unavailable`, `server_error`) |
/// | `ubiquity_build_info` | gauge | `version` |
/// | `ubiquity_fleet_*` | | see ``FleetMonitor`` |
package enum ServerMetrics {
    /// Handles made once per label and dimensions (a lookup in the backend's registry per
    /// request cost the server a few percent of its CPU).
    private static let counters = Lock<[String: Counter]>([:])
    private static let timers = Lock<[String: Timer]>([:])

    static func counter(_ label: String, _ dimensions: [(String, String)] = []) -> Counter {
        cached(counters, label, dimensions) { Counter(label: label, dimensions: dimensions) }
    }

    static func timer(_ label: String, _ dimensions: [(String, String)] = []) -> Timer {
        cached(timers, label, dimensions) { Timer(label: label, dimensions: dimensions) }
    }

    /// The handle of `label` with `dimensions` in `cache`, made by `make` the first time.
    private static func cached<Handle: Sendable>(_ cache: borrowing Lock<[String: Handle]>, _ label: String, _ dimensions: [(String, String)],
                                       _ make: () -> Handle) -> Handle {
        handle(in: cache, for: label + dimensions.map { "|\($0.0)=\($0.1)" }.joined(), make)
    }

    /// The handle at `key` in `table`, made by `make` the first time (after the process
    /// bootstrapped its metrics backend: handles are made at their first use).
    private static func handle<Key: Hashable & Sendable, Handle: Sendable>(in table: borrowing Lock<[Key: Handle]>, for key: Key, _ make: () -> Handle) -> Handle {
        table.withLock { t in
            if let known = t[key] { return known }
            let made = make()
            t[key] = made
            return made
        }
    }

    /// The handles every request and every commit records, found by route and status (by
    /// outcome): ``cached(_:_:_:_:)`` builds a string key of the label and dimensions, a cost
    /// each request paid four times (issue 42).
    private struct RequestKey: Hashable {
        var route: String
        var status: Int
    }
    private static let requestHandles = Lock<[RequestKey: (count: Counter, duration: Timer)]>([:])
    private static let commitHandles = Lock<[String: (count: Counter, duration: Timer)]>([:])

    static func request(route: String, status: Int, duration: Duration) {
        let handles = handle(in: requestHandles, for: RequestKey(route: route, status: status)) {
            (counter("ubiquity_requests_total", [("route", route), ("status", String(status))]),
             timer("ubiquity_request_duration_seconds", [("route", route)]))
        }
        handles.count.increment()
        handles.duration.recordNanoseconds(duration.nanoseconds)
        if status >= 500 {
            counter("ubiquity_errors_total", [("kind", status == 503 ? "database_unavailable" : "server_error")]).increment()
        }
    }

    static func commit(outcome: String, duration: Duration) {
        let handles = handle(in: commitHandles, for: outcome) {
            (counter("ubiquity_commits_total", [("outcome", outcome)]), timer("ubiquity_commit_duration_seconds"))
        }
        handles.count.increment()
        handles.duration.recordNanoseconds(duration.nanoseconds)
    }

    /// A commit refused before it reached the database (its body broke the protocol's rules): counted, not timed.
    static func invalidCommit() {
        counter("ubiquity_commits_total", [("outcome", "invalid")]).increment()
    }

    static func conflicts(_ count: Int) {
        if count > 0 { counter("ubiquity_conflicts_total").increment(by: count) }
    }

    static func quotaRefusal(_ quota: String) {
        counter("ubiquity_quota_refusals_total", [("quota", quota)]).increment()
    }

    static let streams = Meter(label: "ubiquity_event_streams")
    static let longPolls = Meter(label: "ubiquity_long_polls")

    static func fanout(_ duration: Duration) {
        timer("ubiquity_fanout_seconds").recordNanoseconds(duration.nanoseconds)
    }

    /// Every outcome a commit can have, each a series from the start (at 0), so that `rate()`
    /// and alerts on them work before the first commit of each kind.
    static let commitOutcomes = ["applied", "conflict", "quota", "unavailable", "unauthorized", "invalid"]
    /// The quotas a commit can be refused by (`ubiquity_quota_refusals_total`'s labels).
    static let quotas = ["bytes", "stores", "other"]

    /// Called once at start: `ubiquity_build_info{version="…"} 1`, and the commit and quota
    /// series at 0.
    package static func recordStart() {
        Gauge(label: "ubiquity_build_info", dimensions: [("version", OpenDefaultsVersion.string)]).record(1)
        for outcome in commitOutcomes { counter("ubiquity_commits_total", [("outcome", outcome)]).increment(by: 0) }
        for quota in quotas { counter("ubiquity_quota_refusals_total", [("quota", quota)]).increment(by: 0) }
        counter("ubiquity_conflicts_total").increment(by: 0)
        FleetMonitor.recordStart()
    }
}
