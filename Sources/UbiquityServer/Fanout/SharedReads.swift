import PlatformIO
import SharedTables
package import UbiquityProtocol
import Synchronization

/// Reads of one store after one revision that are asked for at the same time
/// share one database query (a commit wakes every watcher of a store, and
/// they all ask the same question).
///
/// A read is shared only by callers with the same ``ChangeHub/Stamp``: one
/// who arrives after a commit of this server or a wake-up from another never
/// joins a read begun before it, which could miss that commit.
package final class SharedReads: Sendable {
    struct Key: Hashable {
        var account: String
        var store: String
        var after: Int64
        var stamp: ChangeHub.Stamp
    }
    typealias Flight = Task<UbiquityChangesResponse, any Error>
    let flights = Lock<[Key: Flight]>([:])

    package init() {}

    /// The answer of `read`, run once for every caller with the same key while it runs.
    package func read(account: String, store: String, after: Int64, stamp: ChangeHub.Stamp,
                      _ read: @escaping @Sendable () async throws -> UbiquityChangesResponse) async throws -> UbiquityChangesResponse {
        let key = Key(account: account, store: store, after: after, stamp: stamp)
        let (flight, leader) = flights.withLock { f -> (Flight, Bool) in
            if let running = f[key] { return (running, false) }
            let task = Flight { try await read() }
            f[key] = task
            return (task, true)
        }
        let result = await flight.result
        if leader { _ = flights.withLock { $0.removeValue(forKey: key) } }
        return try result.get()
    }
}
