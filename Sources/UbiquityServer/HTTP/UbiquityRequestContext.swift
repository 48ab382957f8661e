import Hummingbird
import NIOCore

/// Hummingbird's basic request context and the connection's event loop
/// (an event stream runs its task there: ``EventLoopTaskExecutor``).
struct UbiquityRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let eventLoop: any EventLoop

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        eventLoop = source.channel.eventLoop
    }
}
