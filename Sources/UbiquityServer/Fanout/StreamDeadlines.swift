import PlatformIO

/// When each open event stream must end, kept by one sleeping task for all
/// of them: a stream costs an entry, not a task of its own, so ending 10,000
/// streams at once (a shutdown) wakes no task per stream.
final class StreamDeadlines: Sendable {
    private struct State {
        var deadlines: [ObjectIdentifier: (at: ContinuousClock.Instant, end: @Sendable () -> Void)] = [:]
        var sleeper: Task<Void, Never>? = nil
        var earliest: ContinuousClock.Instant? = nil
    }
    private let state = Lock(State())

    /// Calls `end` at `deadline` unless ``cancel(_:)`` comes first.
    func add(_ stream: StreamSubscription, at deadline: ContinuousClock.Instant, end: @escaping @Sendable () -> Void) {
        state.withLock { s in
            s.deadlines[ObjectIdentifier(stream)] = (deadline, end)
            if s.earliest.map({ deadline < $0 }) ?? true { schedule(&s, deadline) }
        }
    }

    /// Forgets the stream's deadline (it ended).
    func cancel(_ stream: StreamSubscription) {
        state.withLock { s in _ = s.deadlines.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    /// One task sleeps until the earliest deadline, ends what is due, and sleeps again.
    private func schedule(_ s: inout State, _ deadline: ContinuousClock.Instant) {
        s.sleeper?.cancel()
        s.earliest = deadline
        s.sleeper = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard !Task.isCancelled, let self else { return }
            self.fire()
        }
    }

    private func fire() {
        let now = ContinuousClock.now
        let due = state.withLock { s -> [@Sendable () -> Void] in
            let ready = s.deadlines.filter { $0.value.at <= now }
            for key in ready.keys { s.deadlines[key] = nil }
            s.earliest = nil
            s.sleeper = nil
            // At most ten wake-ups a second, each ending whatever is due (a scan of the entries).
            if let next = s.deadlines.values.map(\.at).min() { schedule(&s, max(next, now + .milliseconds(100))) }
            return ready.values.map(\.end)
        }
        for end in due { end() }
    }
}
