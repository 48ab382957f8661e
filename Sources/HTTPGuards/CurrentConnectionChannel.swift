package import HummingbirdCore
package import Logging
package import NIOCore

/// A Hummingbird child channel that makes its connection the task's
/// ``CurrentConnection`` while the connection is served, so that the
/// responder can trust it, close it after an answer, or bound a body's time
/// (``BodyReading``).
///
/// ```swift
/// HTTPServerBuilder { responder in
///     CurrentConnectionChannel(base: HTTP1Channel(responder: responder, configuration: http1))
/// }
/// ```
package struct CurrentConnectionChannel<Base: ServerChildChannel>: ServerChildChannel {
    package typealias Value = Base.Value

    let base: Base

    package init(base: Base) { self.base = base }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger)
    }

    package func handle(value: Value, logger: Logger) async {
        await CurrentConnection.$channel.withValue(value.channel) {
            await base.handle(value: value, logger: logger)
        }
    }
}
