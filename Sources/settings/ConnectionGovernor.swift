import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Caps the server's open connections so that a flood of idle sockets
/// cannot starve real requests: when a connection arrives beyond the cap, the
/// connection that has been idle longest (no request in progress — including
/// one that never finished sending its header) is closed to make room.
/// Together with the idle timeout (which closes a connection that sends
/// nothing, or only part of a header, for that long) every connection's
/// life is bounded.
final class ConnectionGovernor: Sendable {
    /// The most connections kept open at once.
    let limit: Int

    private struct Entry {
        let channel: any Channel
        var busy: Bool
        var lastActive: ContinuousClock.Instant
    }
    private let open = Mutex<[ObjectIdentifier: Entry]>([:])

    init(limit: Int) { self.limit = limit }

    /// The number of connections open now.
    var count: Int { open.withLock { $0.count } }

    func opened(_ channel: any Channel) {
        let victim: (any Channel)? = open.withLock { table in
            table[ObjectIdentifier(channel)] = Entry(channel: channel, busy: false, lastActive: .now)
            guard table.count > limit else { return nil }
            let idle = table.filter { !$0.value.busy && $0.key != ObjectIdentifier(channel) }
            guard let oldest = idle.min(by: { $0.value.lastActive < $1.value.lastActive }) else { return nil }
            table[oldest.key] = nil
            return oldest.value.channel
        }
        victim?.close(promise: nil)
    }

    func closed(_ channel: any Channel) {
        _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func setBusy(_ channel: any Channel, _ busy: Bool) {
        open.withLock { table in
            table[ObjectIdentifier(channel)]?.busy = busy
            table[ObjectIdentifier(channel)]?.lastActive = .now
        }
    }

    /// The handler each connection's pipeline gets.
    func handler() -> GovernedConnection { GovernedConnection(governor: self) }
}

/// Reports one connection's life and requests to its ``ConnectionGovernor``.
final class GovernedConnection: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let governor: ConnectionGovernor
    private var registered = false

    init(governor: ConnectionGovernor) { self.governor = governor }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive, !registered {
            registered = true
            governor.opened(context.channel)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        if !registered {
            registered = true
            governor.opened(context.channel)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        governor.closed(context.channel)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        governor.closed(context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { governor.setBusy(context.channel, true) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { governor.setBusy(context.channel, false) }
        context.write(data, promise: promise)
    }
}
