import NIOCore
import Synchronization

/// The bodies being read, checked together against their minimum rate (``BodyReading``).
///
/// A body used to cost a repeating timer of its own on its connection's event loop, scheduled as
/// its read began and cancelled as it ended. NIO cancels a timer by searching the loop's whole
/// list of timers (every connection's idle timer, every event stream's), so a commit's cost grew
/// with the number of connections the server held; the timer's promise and callbacks were about
/// 3% of the event loops' time under commits (issue 42). Here a body is an entry in one table,
/// added as its read begins and removed as it ends, and one sweep every
/// ``BodyReading/checkInterval`` checks the entries whose grace is over. The sweep runs only
/// while some body is being read.
///
/// ```swift
/// let id = BodyWatch.shared.watch(progress, channel: channel, minimumRate: 16 << 10, graceNanoseconds: 10_000_000_000)
/// defer { BodyWatch.shared.stop(id) }
/// ```
final class BodyWatch: Sendable {
    /// The watch of every body this process reads.
    static let shared = BodyWatch()

    struct Entry {
        let progress: BodyReading.Progress
        let channel: any Channel
        let start: NIODeadline
        let graceNanoseconds: Int64
        let minimumRate: Int
    }

    struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        /// When the pending sweep was scheduled (nil: none is).
        var sweepScheduled: NIODeadline? = nil
    }

    let state = Mutex(State())

    /// Watches a body's read on `channel` until ``stop(_:)``; the identifier to stop it with.
    func watch(_ progress: BodyReading.Progress, channel: any Channel, minimumRate: Int, graceNanoseconds: Int64) -> UInt64 {
        let now = NIODeadline.now()
        let (id, schedule) = state.withLock { s -> (UInt64, Bool) in
            s.nextID += 1
            s.entries[s.nextID] = Entry(progress: progress, channel: channel, start: now, graceNanoseconds: graceNanoseconds, minimumRate: minimumRate)
            // A sweep is pending, unless the one scheduled never ran (its loop shut down).
            if let scheduled = s.sweepScheduled, now - scheduled < .seconds(5) { return (s.nextID, false) }
            s.sweepScheduled = now
            return (s.nextID, true)
        }
        if schedule { scheduleSweep(on: channel.eventLoop) }
        return id
    }

    /// Ends the watch of a body whose read ended.
    func stop(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    func scheduleSweep(on loop: any EventLoop) {
        loop.scheduleTask(in: BodyReading.checkInterval) { self.sweep(on: loop) }
    }

    /// Closes the input of every connection whose body fell behind its rate once its grace was
    /// over (the read then ends, and the answer, 408, can still be written); schedules the next
    /// sweep while bodies are being read.
    func sweep(on loop: any EventLoop) {
        let now = NIODeadline.now()
        let (late, again) = state.withLock { s -> ([any Channel], Bool) in
            var late: [any Channel] = []
            for (id, e) in s.entries {
                let overdue = (now - e.start).nanoseconds - e.graceNanoseconds
                guard overdue >= 0 else { continue }
                guard Double(e.progress.bytes.load(ordering: .relaxed)) < Double(e.minimumRate) * Double(overdue) / 1e9 else { continue }
                e.progress.tooSlow.store(true, ordering: .relaxed)
                late.append(e.channel)
                s.entries[id] = nil
            }
            s.sweepScheduled = s.entries.isEmpty ? nil : now
            return (late, !s.entries.isEmpty)
        }
        for channel in late { channel.close(mode: .input, promise: nil) }
        if again { scheduleSweep(on: loop) }
    }
}
