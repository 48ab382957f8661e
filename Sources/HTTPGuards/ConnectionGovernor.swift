package import NIOCore
import NIOHTTPTypes
import Synchronization

/// Caps a server's open connections so that a flood of sockets cannot starve
/// real requests or exhaust the process's file descriptors.
///
/// When a connection arrives beyond the cap, one idle connection (no request
/// in progress, including one that never finished sending its header) is
/// closed to make room: first the longest idle of those that never
/// authenticated, then the longest idle of the rest. When every other
/// connection is busy (event streams, long polls), the newcomer is closed.
/// Together with the idle timeout and ``BodyReading``'s minimum rate, every
/// connection's life is bounded.
///
/// ```swift
/// let governor = ConnectionGovernor(limit: 256)
/// let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [governor.handler()])
/// ```
package final class ConnectionGovernor: Sendable {
    /// The most connections kept open at once.
    package let limit: Int

    private struct Entry {
        let channel: any Channel
        var busy = false
        /// A request on it presented valid credentials (``trust(_:)``).
        var trusted = false
        /// Close once the response in progress is written (``closeAfterResponse(_:)``).
        var closing = false
        var lastActive: ContinuousClock.Instant = .now
    }
    private let open = Mutex<[ObjectIdentifier: Entry]>([:])

    package init(limit: Int) {
        precondition(limit >= 1, "a governor needs room for one connection")
        self.limit = limit
    }

    /// The number of connections open now.
    package var count: Int { open.withLock { $0.count } }

    /// Registers `channel`; closes the connection the rules above choose when
    /// the cap is passed.
    package func opened(_ channel: any Channel) {
        let me = ObjectIdentifier(channel)
        let victim: (any Channel)? = open.withLock { table in
            table[me] = Entry(channel: channel)
            guard table.count > limit else { return nil }
            let idle = table.filter { !$0.value.busy && $0.key != me }
            // Lingering after a refusal first, then untrusted before trusted; within each, the longest idle.
            let chosen = idle.min { a, b in
                if a.value.closing != b.value.closing { return a.value.closing }
                return a.value.trusted != b.value.trusted ? !a.value.trusted : a.value.lastActive < b.value.lastActive
            }
            let key = chosen?.key ?? me
            let channel = table[key]?.channel
            table[key] = nil
            return channel
        }
        victim?.close(promise: nil)
    }

    /// Forgets `channel` (it closed).
    package func closed(_ channel: any Channel) {
        _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// A request began on `channel`: it is busy until its response ends (``responseEnded(_:)``).
    func requestStarted(_ channel: any Channel) {
        open.withLock { table in
            table[ObjectIdentifier(channel)]?.busy = true
            table[ObjectIdentifier(channel)]?.lastActive = .now
        }
    }

    /// Marks `channel` as having authenticated: it is shed only after every
    /// connection that has not.
    package func trust(_ channel: any Channel) {
        open.withLock { $0[ObjectIdentifier(channel)]?.trusted = true }
    }

    /// Closes `channel` once the response in progress is written (a request
    /// refused before its body was read: the body is never parsed or kept). The
    /// answer says `Connection: close`, and the close lingers: the answer, then the sending side shut, then at most
    /// ``lingerBytes`` read and dropped within ``lingerTime`` (``GovernedConnection``).
    package func closeAfterResponse(_ channel: any Channel) {
        open.withLock { $0[ObjectIdentifier(channel)]?.closing = true }
    }

    /// Whether `channel` is to close after its response.
    func closesAfterResponse(_ channel: any Channel) -> Bool {
        open.withLock { $0[ObjectIdentifier(channel)]?.closing == true }
    }

    /// A response on `channel` was written whole: the connection is idle (a closing
    /// one lingers, ``GovernedConnection``, and is the first to shed); whether it closes.
    func responseEnded(_ channel: any Channel) -> Bool {
        open.withLock { table in
            let me = ObjectIdentifier(channel)
            table[me]?.busy = false
            table[me]?.lastActive = .now
            return table[me]?.closing == true
        }
    }

    /// How long a refused connection keeps reading (and dropping) what its client
    /// still sends before it closes: long enough for the client to read the refusal.
    package static let lingerTime: TimeAmount = .seconds(2)
    /// The most bytes read and dropped while lingering; then reading stops until the time is up.
    package static let lingerBytes = 256 << 10

    /// The handler each connection's pipeline gets.
    package func handler() -> GovernedConnection { GovernedConnection(governor: self) }
}
