import Foundation
import Testing
@testable import TestSupport

/// The test suite's own rule: a suite marked `.offThePool` runs its tests on threads of their own,
/// at most `OffThePoolTrait.width` at once.
@Suite("OffThePoolTrait: blocking tests hold none of the pool's threads", .offThePool, .reportsSeeds, .timeLimit(.minutes(10)))
struct OffThePoolTraitTests {
    @Test("a synchronous test runs on a thread of its own, not one of the cooperative pool's")
    func synchronousTestOnItsThread() {
        #expect(BlockingWorkExecutor.isCurrentThreadItsOwn)
    }

    @Test("an asynchronous test resumes on its thread after a suspension")
    func asynchronousTestStaysOnItsThread() async throws {
        try await Task.sleep(for: .milliseconds(1))
        #expect(onItsOwnThread())
    }

    @Test("each argument of a parameterized test has its own thread", arguments: 0..<3)
    func eachCase(_ n: Int) {
        #expect(BlockingWorkExecutor.isCurrentThreadItsOwn, "case \(n)")
    }

    @Test("the gate: 30 entries at random, never more than its width inside, every entry admitted")
    func gateWidth() async {
        let gate = OffThePoolTrait.Gate(width: 3)
        let seen = Counts()
        var random = SeededRandom()
        let pauses = (0..<30).map { _ in Int(random.next() % 3) }
        await withTaskGroup(of: Void.self) { group in
            for millis in pauses {
                group.addTask {
                    await gate.enter()
                    await seen.entered()
                    try? await Task.sleep(for: .milliseconds(millis))
                    await seen.left()
                    await gate.leave()
                }
            }
        }
        #expect(await seen.most <= 3, "seed \(random.seed)")
        #expect(await seen.most >= 1)
        #expect(await seen.total == 30)
    }

    /// (`Thread.current` is not for asynchronous code: which thread it runs on is what is tested.)
    func onItsOwnThread() -> Bool { BlockingWorkExecutor.isCurrentThreadItsOwn }

    actor Counts {
        var inside = 0, most = 0, total = 0
        func entered() { inside += 1; total += 1; most = max(most, inside) }
        func left() { inside -= 1 }
    }
}
