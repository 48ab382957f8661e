import Foundation

/// Runs jobs on threads of its own: `Thread`s (pthreads), outside Swift's cooperative pool and
/// outside dispatch's thread pools, so blocking work there holds none of the threads that the rest
/// of the test run waits for.
///
/// A job runs on an idle thread of this executor, or on a new one when none is idle: child tasks
/// of a test on this executor run side by side, as they would in the pool, so one that blocks
/// until another acts cannot wait for a thread the first holds. A thread ends after a second
/// without work.
///
/// (A serial dispatch queue was used before: on Linux dispatch's threads are limited beside the
/// cooperative pool's, and full runs on a loaded two-core machine stalled every small test for
/// minutes.)
public final class BlockingWorkExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`: jobs not yet taken by a thread.
    private var jobs: [UnownedJob] = []
    /// Guarded by `condition`: threads waiting for a job.
    private var idle = 0

    public init() {}

    /// Whether the calling code runs on a thread of a `BlockingWorkExecutor` (Linux gives a new
    /// thread its creator's name, so a thread's name cannot tell).
    public static var isCurrentThreadItsOwn: Bool { Thread.current.threadDictionary[mark] as? Bool == true }

    private static let mark = "opendefaults.tests.blocking-work"

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        defer { condition.unlock() }
        jobs.append(job)
        if idle >= jobs.count {
            condition.signal()      // a waiting thread takes it
        } else {
            Thread { [self] in
                Thread.current.threadDictionary[Self.mark] = true
                work()
            }.start()
        }
    }

    /// A thread's life: take jobs until none comes for a second.
    private func work() {
        let executor = asUnownedTaskExecutor()
        condition.lock()
        while true {
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                condition.unlock()
                job.runSynchronously(on: executor)
                condition.lock()
                continue
            }
            idle += 1
            let woken = condition.wait(until: Date(timeIntervalSinceNow: 1))
            idle -= 1
            if !woken && jobs.isEmpty { break }
        }
        condition.unlock()
    }
}

/// Runs `body` — long, synchronous, CPU-heavy or blocking test work (a
/// corpus of files, a model test of thousands of steps, loops of `fsync`,
/// children killed and waited for) — on a thread of its own outside Swift's
/// cooperative pool (``BlockingWorkExecutor``), in the same task, so its
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
