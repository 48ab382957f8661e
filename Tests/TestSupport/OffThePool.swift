import Dispatch

/// Runs jobs on a serial dispatch queue of its own: threads outside Swift's
/// cooperative pool (dispatch adds them as needed), so blocking work there
/// holds none of the pool's threads.
public final class BlockingWorkExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "opendefaults.tests.blocking-work")

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Runs `body` — long, synchronous, CPU-heavy or blocking test work (a
/// corpus of files, a model test of thousands of steps, loops of `fsync`) —
/// on a thread outside Swift's cooperative pool, in the same task, so its
/// expectations are the test's as usual.
///
/// The pool has as many threads as cores (two here); a synchronous test
/// holds one for as long as it runs, and with two such tests every other
/// test of the run stops: its timers, its servers' answers, its deadlines.
///
/// ```swift
/// @Test func everyFile() async throws {
///     try await offThePool { for file in corpus { #expect(try read(file) == expected(file)) } }
/// }
/// ```
public func offThePool<T>(_ body: () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(BlockingWorkExecutor()) { try body() }
}

/// Runs the bodies at once, each on a thread of its own outside the
/// cooperative pool (``offThePool(_:)``), and waits for all of them: for
/// tests whose point is blocking work racing itself.
///
/// ```swift
/// try await racingOffThePool([{ writeBurst() }, { try flushLoop() }])
/// ```
public func racingOffThePool(_ bodies: [@Sendable () throws -> Void]) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for body in bodies { group.addTask { try await offThePool(body) } }
        try await group.waitForAll()
    }
}
