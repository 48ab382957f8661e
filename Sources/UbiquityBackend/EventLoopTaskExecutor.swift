package import NIOCore

/// A task executor that runs jobs on one SwiftNIO event loop.
///
/// Each HTTP connection's task prefers its connection's event loop
/// (``EventLoopBoundChannel``): a commit then resumes each event stream on the
/// thread that writes to its socket, with no hop from Swift's global executor
/// (with 10,000 watchers that hop was a fifth of the server's work per
/// commit). The PostgreSQL writers prefer the pool's loop the same way.
package final class EventLoopTaskExecutor: TaskExecutor {
    package let eventLoop: any EventLoop

    package init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }
}
