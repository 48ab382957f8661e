package import HummingbirdCore
package import NIOCore
import Synchronization

/// Reads a request body with a bound on its size and a deadline of its own.
///
/// The idle timeout of a connection restarts with every byte, so a client
/// sending one byte every few seconds would hold a connection (and the body
/// so far) for ever. Here a body must keep a minimum rate once a grace
/// period has passed: after `grace`, at least `minimumRate` bytes per second
/// since the grace ended, or the read ends with ``Failure/tooSlow(received:)``.
///
/// The deadline is kept by ``BodyWatch``, which checks every body being read
/// on the connections (``CurrentConnection``) every ``checkInterval``: when a
/// body falls behind, it closes the connection's input, which ends the read;
/// the answer (408) can still be written. A body that arrives in time costs an
/// entry in its table, added and removed. Without a current connection there
/// is no deadline (the server's child channel sets one:
/// ``CurrentConnectionChannel``).
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
    /// How often the deadline is checked once the grace period is over.
    static let checkInterval: TimeAmount = .milliseconds(200)

    final class Progress: Sendable {
        let bytes = Atomic<Int>(0)
        let tooSlow = Atomic<Bool>(false)
    }

    /// The whole body, or why not.
    package static func collect(_ body: RequestBody, upTo limit: Int, minimumRate: Int = defaultMinimumRate,
                                grace: Duration = defaultGrace) async -> Result<ByteBuffer, Failure> {
        let progress = Progress()
        let watch = CurrentConnection.channel.map { channel in
            BodyWatch.shared.watch(progress, channel: channel, minimumRate: minimumRate,
                                   graceNanoseconds: grace.components.seconds * 1_000_000_000 + grace.components.attoseconds / 1_000_000_000)
        }
        defer { if let watch { BodyWatch.shared.stop(watch) } }
        var buffer = ByteBuffer()
        do {
            for try await var chunk in body {
                guard buffer.readableBytes + chunk.readableBytes <= limit else { return .failure(.tooLarge(limit: limit)) }
                buffer.writeBuffer(&chunk)
                progress.bytes.store(buffer.readableBytes, ordering: .relaxed)
            }
        } catch {
            return .failure(progress.tooSlow.load(ordering: .relaxed) ? .tooSlow(received: buffer.readableBytes) : .interrupted)
        }
        if progress.tooSlow.load(ordering: .relaxed) { return .failure(.tooSlow(received: buffer.readableBytes)) }
        return .success(buffer)
    }
}
