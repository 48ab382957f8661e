import Foundation
import Testing
import TestSupport
import UbiquityServer

/// The server's connections outside Hummingbird's task group: the server
/// waits for every one before it closes its database, and cancels those
/// left when its time runs out.
@Suite("ubiquity serve: connection tasks are waited for, and cancelled when the time is up", .timeLimit(.minutes(10)))
struct ConnectionTasksTests {
    @Test("waitUntilEmpty returns only after the last connection's work has finished, in whatever order they finish")
    func waitsForEvery() async {
        let connections = ConnectionTasks()
        let done = Locked<[Int]>([])
        let gates = (0..<200).map { _ in Gate() }
        for i in 0..<200 {
            connections.run(on: BlockingWorkExecutor()) {
                await gates[i].wait()
                done.mutate { $0.append(i) }
            }
        }
        #expect(connections.count == 200)
        let waiter = Task { await connections.waitUntilEmpty(); return done.value.count }
        // Opened last first, then the rest in a scrambled order.
        var order = Array((0..<200).reversed())
        var random = SeededRandom(seed: 27)
        order.shuffle(using: &random)
        for i in order { gates[i].open() }
        #expect(await waiter.value == 200)
        #expect(connections.count == 0)
    }

    @Test("drain cancels the connections left when its time is up, and returns once they ended")
    func drainCancels() async {
        let connections = ConnectionTasks()
        let cancelled = Locked(0)
        for _ in 0..<20 {
            connections.run(on: BlockingWorkExecutor()) {
                // A connection that would run for an hour unless cancelled.
                try? await Task.sleep(for: .seconds(3_600))
                if Task.isCancelled { cancelled.mutate { $0 += 1 } }
            }
        }
        let started = ContinuousClock.now
        await connections.drain(within: .milliseconds(200))
        let took = ContinuousClock.now - started
        #expect(cancelled.value == 20)
        #expect(connections.count == 0)
        #expect(took >= .milliseconds(200))
        #expect(took < .seconds(300), "cancelled connections end: the drain does not wait out their hour")
    }

    @Test("a connection that starts after cancelAll is cancelled at once; with none open, drain returns at once")
    func lateConnection() async {
        let connections = ConnectionTasks()
        await connections.drain(within: .seconds(3_600))
        connections.cancelAll()
        let sawCancel = Locked(false)
        connections.run(on: BlockingWorkExecutor()) {
            try? await Task.sleep(for: .seconds(3_600))
            sawCancel.set(Task.isCancelled)
        }
        await connections.waitUntilEmpty()
        #expect(sawCancel.value)
    }
}

/// A one-shot gate a task waits at until it is opened.
final class Gate: Sendable {
    let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let open = state.mutate { s -> Bool in
                if s.open { return true }
                s.waiters.append(c)
                return false
            }
            if open { c.resume() }
        }
    }

    func open() {
        let waiters = state.mutate { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume() }
    }
}
