import Tracing

/// Whether the server makes spans: only when an operator has bootstrapped a tracer (swift-otel,
/// for one); none is linked by default.
///
/// Without one, a request and a commit run without `withSpan`: its frames would otherwise stay
/// in the slabs of each connection's task for as long as the connection is open (proposal 0018,
/// "What an idle machine costs the server"), and its context push would cost every commit.
enum ServerTracing {
    /// True once a tracer other than the no-op one is bootstrapped (asked at each use: an
    /// operator's bootstrap comes before the server starts, but nothing forbids it later).
    static var isOn: Bool { !(InstrumentationSystem.tracer is NoOpTracer) }
}
