import CoreMetrics
import UbiquityBackend

/// The PostgreSQL backend's metrics (swift-metrics; exported by `ubiquity serve --metrics`):
///
/// | metric | kind | |
/// |---|---|---|
/// | `ubiquity_database_operations` | gauge | database calls in flight (queries, transactions; a writer's group commits, one after another on its connection, count as one) |
/// | `ubiquity_database_connection_wait_seconds` | histogram | from asking the pool for a connection until it is given |
/// | `ubiquity_database_reachable` | gauge | 1 while a primary answers, 0 while none does |
/// | `ubiquity_database_failovers_total` | counter | the pool moved to another server (a promoted standby) |
enum DatabaseMetrics {
    static let operations = Meter(label: "ubiquity_database_operations")
    static let connectionWait = Timer(label: "ubiquity_database_connection_wait_seconds")
    static let reachable = Gauge(label: "ubiquity_database_reachable")
    static let failovers = Counter(label: "ubiquity_database_failovers_total")

    static func waited(since start: ContinuousClock.Instant) {
        connectionWait.recordNanoseconds((ContinuousClock.now - start).nanoseconds)
    }
}
