public import Testing

/// Runs each test of a suite on a thread of its own (``BlockingWorkExecutor``), outside Swift's
/// cooperative pool: for suites whose synchronous tests block — run and wait for child processes,
/// poll a file or a server, kill writers over and over.
///
/// A synchronous test runs on whatever thread calls it; in the pool (as many threads as cores,
/// two here) it holds that thread until it returns. Two such tests at once stop everything else
/// of the run that needs the pool: the in-process clients' event streams, every timer and
/// deadline, and the other tests — a loaded full run had every small test waiting 200 s.
/// An asynchronous test that calls such helpers (start a server and poll until it listens, run
/// `curl` and wait) blocks the same way, and starves what the test's own unstructured tasks and
/// the libraries' tasks need from the pool (a full loaded run had an event stream deliver nothing
/// for 30 s while the server answered commits in milliseconds): the server suites carry it too.
/// With this trait the test's body runs on its thread instead; at most
/// ``OffThePoolTrait/width`` such tests run at once (the others wait without holding a
/// thread), so a suite of hundreds of child processes does not start them all together.
///
/// ```swift
/// @Suite("defaults: verbs", .offThePool) struct DefaultsToolTests { … }
/// ```
public struct OffThePoolTrait: SuiteTrait, TestTrait, TestScoping {
    /// How many tests with this trait run at once, in the whole run.
    public static let width = 4

    public var isRecursive: Bool { true }

    /// A scope for each test case (each of a parameterized test's arguments), none for a suite.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        await Gate.shared.enter()
        do {
            try await withTaskExecutorPreference(BlockingWorkExecutor()) { try await function() }
        } catch {
            await Gate.shared.leave()
            throw error
        }
        await Gate.shared.leave()
    }

    /// Admits ``OffThePoolTrait/width`` tests at once, the rest in the order they came.
    actor Gate {
        init(width: Int) { self.width = width }

        static let shared = Gate(width: OffThePoolTrait.width)
        let width: Int
        private var inside = 0
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func enter() async {
            if inside < width {
                inside += 1
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func leave() {
            if waiting.isEmpty {
                inside -= 1
            } else {
                waiting.removeFirst().resume()   // its place passes on: `inside` stays
            }
        }
    }
}

extension Trait where Self == OffThePoolTrait {
    /// Runs each test on a thread of its own, outside the cooperative pool (``OffThePoolTrait``).
    public static var offThePool: Self { OffThePoolTrait() }
}
