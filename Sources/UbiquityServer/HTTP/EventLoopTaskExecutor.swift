import NIOCore

/// A task executor that runs jobs on one SwiftNIO event loop.
///
/// An event stream's task prefers the event loop of its connection: a commit
/// then resumes each watcher on the thread that writes to its socket, and the
/// write needs no hop from Swift's global executor to the event loop (with
/// 10,000 watchers that hop was a fifth of the server's work per commit).
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
