import Tracing
import Synchronization

/// Whether the server makes spans: only when an operator has bootstrapped a tracer (swift-otel,
/// for one); none is linked by default.
///
/// Without one, a request and a commit run without `withSpan`: its frames would otherwise stay
/// in the slabs of each connection's task for as long as the connection is open (proposal 0018,
/// "What an idle machine costs the server"), and its context push would cost every commit.
enum ServerTracing {
    /// True when a tracer other than the no-op one was bootstrapped before the server started
    /// (``refresh()``, which the server calls as it starts). Asked once, not at each request:
    /// `InstrumentationSystem.tracer` takes a lock and a dynamic cast, about 2% of a commit's
    /// CPU when it was asked twice a request (issue 42).
    static var isOn: Bool { on.load(ordering: .relaxed) }

    /// Looks again whether a tracer is bootstrapped (a process bootstraps at most once).
    static func refresh() { on.store(!(InstrumentationSystem.tracer is NoOpTracer), ordering: .relaxed) }

    private static let on = Atomic(!(InstrumentationSystem.tracer is NoOpTracer))
}
