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

    /// One open connection's state. Its own handler (``GovernedConnection``, on the connection's
    /// event loop) writes it without the table's lock, at every request's start and end; the
    /// table's lock is taken only to open, close, trust or shed a connection.
    package final class Record: Sendable {
        let channel: any Channel
        /// A request is in progress.
        let busy = Atomic(false)
        /// A request on it presented valid credentials (``trust(_:)``).
        let trusted = Atomic(false)
        /// Close once the response in progress is written (``closeAfterResponse(_:)``).
        let closing = Atomic(false)
        /// When a request last started or ended (`NIODeadline`'s uptime, in nanoseconds).
        let lastActive = Atomic(NIODeadline.now().uptimeNanoseconds)

        init(channel: any Channel) { self.channel = channel }

        /// A request began: the connection is busy until its response ends.
        func requestStarted() {
            busy.store(true, ordering: .relaxed)
            lastActive.store(NIODeadline.now().uptimeNanoseconds, ordering: .relaxed)
        }

        /// Whether the response in progress is to close the connection (``closeAfterResponse(_:)``).
        var closesAfterResponse: Bool { closing.load(ordering: .relaxed) }

        /// A response was written whole: the connection is idle; whether it closes now.
        func responseEnded() -> Bool {
            busy.store(false, ordering: .relaxed)
            lastActive.store(NIODeadline.now().uptimeNanoseconds, ordering: .relaxed)
            return closesAfterResponse
        }
    }
    private let open = Mutex<[ObjectIdentifier: Record]>([:])

    package init(limit: Int) {
        precondition(limit >= 1, "a governor needs room for one connection")
        self.limit = limit
    }

    /// The number of connections open now.
    package var count: Int { open.withLock { $0.count } }

    /// Registers `channel`; closes the connection the rules above choose when
    /// the cap is passed. The record is the connection's handler's to update.
    @discardableResult
    package func opened(_ channel: any Channel) -> Record {
        let me = ObjectIdentifier(channel)
        let record = Record(channel: channel)
        let victim: (any Channel)? = open.withLock { table in
            table[me] = record
            guard table.count > limit else { return nil }
            // Idle ones (no request in progress) other than the newcomer; lingering after a
            // refusal first, then untrusted before trusted; within each, the longest idle.
            var chosen: (key: ObjectIdentifier, closing: Bool, trusted: Bool, lastActive: UInt64)? = nil
            for (key, r) in table where key != me && !r.busy.load(ordering: .relaxed) {
                let candidate = (key: key, closing: r.closing.load(ordering: .relaxed), trusted: r.trusted.load(ordering: .relaxed),
                                 lastActive: r.lastActive.load(ordering: .relaxed))
                guard let best = chosen else { chosen = candidate; continue }
                let first = candidate.closing != best.closing ? candidate.closing
                    : candidate.trusted != best.trusted ? !candidate.trusted : candidate.lastActive < best.lastActive
                if first { chosen = candidate }
            }
            let key = chosen?.key ?? me
            let channel = table[key]?.channel
            table[key] = nil
            return channel
        }
        victim?.close(promise: nil)
        return record
    }

    /// Forgets a connection that closed: its record, and not a later channel's at the same address.
    package func closed(_ record: Record) {
        open.withLock { table in
            let me = ObjectIdentifier(record.channel)
            if table[me] === record { table[me] = nil }
        }
    }

    /// Marks `channel` as having authenticated: it is shed only after every
    /// connection that has not.
    package func trust(_ channel: any Channel) {
        open.withLock { $0[ObjectIdentifier(channel)] }?.trusted.store(true, ordering: .relaxed)
    }

    /// Closes `channel` once the response in progress is written (a request
    /// refused before its body was read: the body is never parsed or kept). The
    /// answer says `Connection: close`, and the close lingers: the answer, then the sending side shut, then at most
    /// ``lingerBytes`` read and dropped within ``lingerTime`` (``GovernedConnection``).
    package func closeAfterResponse(_ channel: any Channel) {
        open.withLock { $0[ObjectIdentifier(channel)] }?.closing.store(true, ordering: .relaxed)
    }

    /// How long a refused connection keeps reading (and dropping) what its client
    /// still sends before it closes: long enough for the client to read the refusal.
    package static let lingerTime: TimeAmount = .seconds(2)
    /// The most bytes read and dropped while lingering; then reading stops until the time is up.
    package static let lingerBytes = 256 << 10

    /// The handler each connection's pipeline gets.
    package func handler() -> GovernedConnection { GovernedConnection(governor: self) }
}
