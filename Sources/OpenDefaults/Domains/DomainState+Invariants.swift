
extension DomainState {
    /// What the rest of the engine relies on: the pending changes' own
    /// invariants; no change and no replacement newer than the last
    /// sequence given; and `count` — what `isEmpty` and the lock-free
    /// entry count publish — equal to the entries reads see. O(entries).
    func _checkInvariants() {
        _checkShape()
        pending._checkInvariants()
        // Counted afresh from what reads see, not with `recount()` (the code that keeps `count`).
        precondition(values.count == count, "DomainState: count \(count), but reads see \(values.count) entries")
    }

    /// The O(1) part: no pending change and no replacement after the last
    /// sequence given; the count within what `base` and `pending` allow.
    func _checkShape() {
        precondition(pending.lastSequence <= sequence,
                     "DomainState: a pending change at \(pending.lastSequence), after the last sequence, \(sequence)")
        precondition((replaced ?? 0) <= sequence, "DomainState: replaced at \(replaced ?? 0), after the last sequence, \(sequence)")
        precondition(count >= 0 && count <= base.count + pending.count && (!pending.isEmpty || count == base.count),
                     "DomainState: count \(count) with \(base.count) entries and \(pending.count) pending")
    }

    /// Run after every change in debug builds: the O(1) part of
    /// ``_checkInvariants()`` (``_checkShape()``); the whole
    /// check too, for domains of at most 256 entries and pending changes,
    /// when built with `-Xswiftc -DOPENDEFAULTS_INTERNAL_CHECKS` (a full
    /// check per write would slow every debug run; the model tests call the
    /// whole check themselves).
    @inline(__always)
    func _checkInvariantsAfterChange() {
        #if DEBUG
        _checkShape()
        #if OPENDEFAULTS_INTERNAL_CHECKS
        if base.count + pending.count <= 256 { _checkInvariants() }
        #endif
        #endif
    }
}
