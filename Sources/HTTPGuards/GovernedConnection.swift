package import NIOCore
package import NIOHTTPTypes
import Synchronization

/// Reports one connection's life and requests to its ``ConnectionGovernor``.
package final class GovernedConnection: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    let governor: ConnectionGovernor
    private var registered = false

    init(governor: ConnectionGovernor) { self.governor = governor }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive, !registered {
            registered = true
            governor.opened(context.channel)
        }
    }

    package func channelActive(context: ChannelHandlerContext) {
        if !registered {
            registered = true
            governor.opened(context.channel)
        }
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        governor.closed(context.channel)
        context.fireChannelInactive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        governor.closed(context.channel)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { governor.setBusy(context.channel, true) }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        if governor.closesAfterResponse(context.channel) {
            context.writeAndFlush(data, promise: promise)
            context.close(promise: nil)
            return
        }
        governor.setBusy(context.channel, false)
        context.write(data, promise: promise)
    }
}
