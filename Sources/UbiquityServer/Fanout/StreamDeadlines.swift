import SharedTables
import Synchronization

/// Ends event streams when their time is up, all of them from one task.
///
/// A stream used to wait for its end in a task of its own (a sleep), which cost every open
/// stream a task, its first slab and a timer: a few kilobytes of an idle machine's share of
/// the server. Here a stream is an entry in a table of deadlines, rounded up to the next
/// ``tick``; one task, running only while a stream is open, wakes each tick and ends the
/// streams that are due.
package final class StreamDeadlines: Sendable {
    /// How finely deadlines are kept: a stream ends at most this much after its time.
    package static let tick: Duration = .milliseconds(100)

    /// A deadline's place in the table, to take it out when the stream ends first.
    package struct Entry: Sendable {
        let tick: Int64
        let id: UInt64
    }

    struct State {
        /// The ends due at each tick (counted from ``StreamDeadlines/origin``).
        var due: [Int64: [UInt64: @Sendable () -> Void]] = [:]
        var count = 0
        var nextID: UInt64 = 0
        /// Whether the sweeping task runs (it stops when the table is empty).
        var sweeping = false
    }
    let state = Lock(State())
    let origin = ContinuousClock.now

    package init() {}

    /// The number of deadlines waiting.
    package var count: Int { state.withLock { $0.count } }

    /// Calls `end` once `after` has passed (at most one ``tick`` late), unless ``remove(_:)`` comes first.
    package func add(after: Duration, _ end: @escaping @Sendable () -> Void) -> Entry {
        let due = Self.ticks(origin.duration(to: .now) + after, roundingUp: true)
        let (entry, start) = state.withLock { s -> (Entry, Bool) in
            s.nextID &+= 1
            let entry = Entry(tick: due, id: s.nextID)
            s.due[due, default: [:]][entry.id] = end
            s.count += 1
            defer { s.sweeping = true }
            return (entry, !s.sweeping)
        }
        if start { Task { await self.sweep() } }
        return entry
    }

    /// Takes a deadline out (its stream ended first); nothing if it was already called.
    package func remove(_ entry: Entry) {
        state.withLock { s in
            guard s.due[entry.tick]?.removeValue(forKey: entry.id) != nil else { return }
            s.count -= 1
            if s.due[entry.tick]?.isEmpty == true { s.due[entry.tick] = nil }
        }
    }

    /// Each tick, the ends that are due, until none is left.
    func sweep() async {
        while true {
            try? await Task.sleep(for: Self.tick)
            let now = Self.ticks(origin.duration(to: .now), roundingUp: false)
            let (ends, last) = state.withLock { s -> ([@Sendable () -> Void], Bool) in
                var ends: [@Sendable () -> Void] = []
                for tick in s.due.keys where tick <= now {
                    ends += s.due.removeValue(forKey: tick)?.values ?? [:].values
                }
                s.count -= ends.count
                // The last one out stops; a deadline added after this starts a new sweep.
                if s.count == 0 { s.sweeping = false }
                return (ends, s.count == 0)
            }
            for end in ends { end() }
            if last { return }
        }
    }

    /// `duration` in ticks, rounded down or up.
    static func ticks(_ duration: Duration, roundingUp: Bool) -> Int64 {
        let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        let tick = tick.components.seconds * 1_000_000_000 + tick.components.attoseconds / 1_000_000_000
        let (whole, part) = nanoseconds.quotientAndRemainder(dividingBy: tick)
        return roundingUp && part > 0 ? whole + 1 : whole
    }
}
