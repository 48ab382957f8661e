import CoreMetrics
import PlatformIO

/// The sync server's metrics, through swift-metrics: whatever backend the
/// process bootstrapped (the `ubiquity` executable: Prometheus on its own
/// listener; none: nothing is recorded).
///
/// | metric | kind | labels |
/// |---|---|---|
/// | `ubiquity_requests_total` | counter | `route`, `status` |
/// | `ubiquity_request_duration_seconds` | histogram | `route` |
/// | `ubiquity_commits_total` | counter | `outcome` (`applied`, `conflict`, `quota`, `unavailable`, `invalid`) |
/// | `ubiquity_commit_duration_seconds` | histogram | |
/// | `ubiquity_conflicts_total` | counter | (keys refused for a stale base) |
/// | `ubiquity_quota_refusals_total` | counter | `quota` |
/// | `ubiquity_event_streams`, `ubiquity_long_polls` | gauge | (open now) |
/// | `ubiquity_fanout_seconds` | histogram | (a commit until a stream writes it) |
/// | `ubiquity_errors_total` | counter | `kind` (`database_unavailable`, `server_error`) |
/// | `ubiquity_build_info` | gauge | `version` |
package enum ServerMetrics {
    static func request(route: String, status: Int, duration: Duration) {
        Counter(label: "ubiquity_requests_total", dimensions: [("route", route), ("status", String(status))]).increment()
        Timer(label: "ubiquity_request_duration_seconds", dimensions: [("route", route)]).recordNanoseconds(duration.nanoseconds)
        if status >= 500 {
            Counter(label: "ubiquity_errors_total", dimensions: [("kind", status == 503 ? "database_unavailable" : "server_error")]).increment()
        }
    }

    static func commit(outcome: String, duration: Duration) {
        Counter(label: "ubiquity_commits_total", dimensions: [("outcome", outcome)]).increment()
        Timer(label: "ubiquity_commit_duration_seconds").recordNanoseconds(duration.nanoseconds)
    }

    static func conflicts(_ count: Int) {
        if count > 0 { Counter(label: "ubiquity_conflicts_total").increment(by: count) }
    }

    static func quotaRefusal(_ quota: String) {
        Counter(label: "ubiquity_quota_refusals_total", dimensions: [("quota", quota)]).increment()
    }

    static let streams = Meter(label: "ubiquity_event_streams")
    static let longPolls = Meter(label: "ubiquity_long_polls")

    static func fanout(_ duration: Duration) {
        Timer(label: "ubiquity_fanout_seconds").recordNanoseconds(duration.nanoseconds)
    }

    /// Called once at start: `ubiquity_build_info{version="…"} 1`.
    package static func recordBuildInfo() {
        Gauge(label: "ubiquity_build_info", dimensions: [("version", OpenDefaultsVersion.string)]).record(1)
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (s, a) = components
        return s * 1_000_000_000 + a / 1_000_000_000
    }
}
