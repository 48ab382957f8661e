package import NIOCore
package import NIOHTTPTypes
import HTTPTypes
import Synchronization

/// Reports one connection's life and requests to its ``ConnectionGovernor``.
package final class GovernedConnection: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    let governor: ConnectionGovernor
    /// This connection's state in the governor's table, once registered.
    private var record: ConnectionGovernor.Record?
    /// The response that refused the request is written: the connection lingers before it closes.
    private var lingering = false
    /// Bytes of body read and dropped while lingering.
    private var lingered = 0

    init(governor: ConnectionGovernor) { self.governor = governor }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive, record == nil {
            record = governor.opened(context.channel)
        }
    }

    package func channelActive(context: ChannelHandlerContext) {
        if record == nil {
            record = governor.opened(context.channel)
        }
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        if let record { governor.closed(record) }
        context.fireChannelInactive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        if let record { governor.closed(record) }
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if lingering {
            // What the client still sends after the refusal is read and dropped, up to a bound.
            if case .body(let chunk) = unwrapInboundIn(data) { lingered += chunk.readableBytes }
            return
        }
        if case .head = unwrapInboundIn(data) { record?.requestStarted() }
        context.fireChannelRead(data)
    }

    package func read(context: ChannelHandlerContext) {
        // Past the byte bound, nothing more is read: the client's sending stalls, and the
        // connection closes when the linger time is up (or the client closes it).
        if lingering, lingered >= ConnectionGovernor.lingerBytes { return }
        context.read()
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where record?.closesAfterResponse == true:
            // The client must not send another request on it.
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
            return
        case .end: break
        default:
            context.write(data, promise: promise)
            return
        }
        if record?.responseEnded() == true {
            let done = context.eventLoop.makePromise(of: Void.self)
            // On the channel's event loop, as the handler and its context are.
            done.futureResult.assumeIsolated().whenComplete { result in
                promise?.completeWith(result)
                switch result {
                case .success: self.linger(context)
                case .failure: context.close(promise: nil)
                }
            }
            context.writeAndFlush(data, promise: done)
            return
        }
        context.write(data, promise: promise)
    }

    /// A lingering close: the answer is sent and the sending side shut (FIN), while what the
    /// client still sends (a body the server refused to read) is read and dropped for at most
    /// ``ConnectionGovernor/lingerTime`` and ``ConnectionGovernor/lingerBytes``, then the
    /// connection closes. Closing at once with unread bytes would send a reset, and the
    /// client's stack may drop the answer it had already received.
    func linger(_ context: ChannelHandlerContext) {
        guard !lingering else { return }
        lingering = true
        context.close(mode: .output).assumeIsolated().whenFailure { _ in context.close(promise: nil) }
        context.eventLoop.assumeIsolated().scheduleTask(in: ConnectionGovernor.lingerTime) { context.close(promise: nil) }
        context.read()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client closed its side: nothing is left to read.
        if lingering, let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}