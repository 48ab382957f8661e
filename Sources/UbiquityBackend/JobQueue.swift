#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PlatformIO
import SharedTables
import Synchronization

/// Work waiting for a backend's writer: appended by requests, taken all at once by the writer.
package final class JobQueue<Job: Sendable>: Sendable {
    let jobs = Lock<[Job]>([])
    package init() {}
    package func append(_ job: Job) { jobs.withLock { $0.append(job) } }
    package func takeAll() -> [Job] { jobs.withLock { q in defer { q.removeAll() }; return q } }
}
