import Foundation

/// Runs each body on a thread of its own and waits for all of them, without
/// holding a thread of Swift's cooperative pool meanwhile.
///
/// A test whose work blocks — `fsync`, file locks, a loop of synchronous
/// writes racing each other — holds a pool thread for as long as it runs;
/// with two cores the pool has two, and every other test of the run (every
/// timer, every server's answer) waits behind them. Blocking work goes here.
///
/// ```swift
/// try await onThreads([{ writeBurst() }, { try flushLoop() }])
/// ```
public func onThreads(_ bodies: [@Sendable () throws -> Void]) async throws {
    let errors = Locked<[any Error]>([])
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
        let group = DispatchGroup()
        for body in bodies {
            group.enter()
            let thread = Thread {
                do { try body() } catch { errors.mutate { $0.append(error) } }
                group.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        group.notify(queue: .global()) { c.resume() }
    }
    if let first = errors.value.first { throw first }
}

/// Runs `body` on a thread of its own (see ``onThreads(_:)``).
public func onThread(_ body: @escaping @Sendable () throws -> Void) async throws {
    try await onThreads([body])
}
