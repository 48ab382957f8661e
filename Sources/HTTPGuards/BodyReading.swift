import HummingbirdCore
import NIOCore
import Synchronization

/// Reads a request body with a bound on its size and a deadline of its own.
///
/// The idle timeout of a connection restarts with every byte, so a client
/// sending one byte every few seconds would hold a connection (and the body
/// so far) for ever. Here a body must keep a minimum rate once a grace
/// period has passed: after `grace`, at least `minimumRate` bytes per second
/// since the grace ended, or the read ends with ``Failure/tooSlow(received:)``.
///
/// ```swift
/// switch await BodyReading.collect(request.body, upTo: 1 << 20) {
/// case .success(let buffer): use(buffer)
/// case .failure(let failure): return refusal(failure)
/// }
/// ```
package enum BodyReading {
    /// Why a body was not read.
    package enum Failure: Error, Equatable {
        /// More than the limit arrived.
        case tooLarge(limit: Int)
        /// The body came slower than the minimum rate.
        case tooSlow(received: Int)
        /// The connection failed or closed before the body ended.
        case interrupted
    }

    /// The default minimum rate once the grace period is over: 16 KiB/s.
    package static let defaultMinimumRate = 16 << 10
    /// The default grace period.
    package static let defaultGrace: Duration = .seconds(10)

    final class Progress: Sendable {
        let bytes = Atomic<Int>(0)
    }

    /// The whole body, or why not.
    package static func collect(_ body: RequestBody, upTo limit: Int, minimumRate: Int = defaultMinimumRate,
                                grace: Duration = defaultGrace) async -> Result<ByteBuffer, Failure> {
        let progress = Progress()
        return await withTaskGroup(of: Result<ByteBuffer, Failure>?.self) { group in
            group.addTask {
                var buffer = ByteBuffer()
                do {
                    for try await var chunk in body {
                        guard buffer.readableBytes + chunk.readableBytes <= limit else { return .failure(.tooLarge(limit: limit)) }
                        buffer.writeBuffer(&chunk)
                        progress.bytes.store(buffer.readableBytes, ordering: .relaxed)
                    }
                } catch {
                    return .failure(.interrupted)
                }
                return .success(buffer)
            }
            group.addTask {
                let start = ContinuousClock.now
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(200))
                    let late = start.duration(to: .now) - grace
                    guard late > .zero else { continue }
                    let owed = Double(minimumRate) * (Double(late.components.seconds) + Double(late.components.attoseconds) / 1e18)
                    let received = progress.bytes.load(ordering: .relaxed)
                    if Double(received) < owed { return .failure(.tooSlow(received: received)) }
                }
                return nil
            }
            defer { group.cancelAll() }
            while let outcome = await group.next() {
                if let outcome { return outcome }
            }
            return .failure(.interrupted)
        }
    }
}
