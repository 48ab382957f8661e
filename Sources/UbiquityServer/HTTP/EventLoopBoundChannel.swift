import UbiquityBackend
import HummingbirdCore
import Logging
import NIOCore

/// A Hummingbird child channel whose connection task runs on the
/// connection's own event loop.
///
/// Hummingbird runs each connection's task on Swift's global executor: every
/// request then crosses threads to be read (event loop → pool thread), again
/// for each database answer, and again to be written. With the task
/// preferring the connection's event loop (``EventLoopTaskExecutor``), the
/// read, the handler and the write stay on one thread; only the database's
/// answers may come from another loop.
///
/// The task is not Hummingbird's child but one of ``ConnectionTasks``
/// (Hummingbird's child returns at once): see there for why.
struct EventLoopBoundChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let connections: ConnectionTasks

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        let base = self.base
        connections.run(on: EventLoopTaskExecutor(value.channel.eventLoop)) {
            await base.handle(value: value, logger: logger)
        }
    }
}
