/// A task executor that runs each job at once, on the thread that enqueues it.
///
/// The SQLite writer's task prefers it. That task spends its life waiting for group commits,
/// each of which runs whole on the writer's own one-thread pool and then resumes the task from
/// that thread. On Swift's global executor each resumption was a hop to another thread (when
/// sqlite-nio ran each statement, two thread wake-ups a statement: on a loaded two-core machine
/// most of a group commit's time, issue 42). Here the task goes on where it was resumed: on the
/// pool's thread, which then finds the next group already queued and runs it without sleeping.
/// Its other resumptions (the wake-up of a commit that arrived) run the task until its next
/// group is queued: a few microseconds of the enqueuing thread.
///
/// Only for a task whose every resumption comes from code that holds no lock the task might take
/// (a continuation resumed by a thread pool's work item, an `AsyncStream`'s `yield`), and whose
/// every stretch between two suspensions is short.
final class InlineTaskExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }
}
