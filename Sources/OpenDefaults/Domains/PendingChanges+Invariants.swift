
extension PendingChanges {
    /// The table's own invariants, and no change newer than the last sequence recorded.
    func _checkInvariants() {
        table._checkInvariants()
        for entry in table.entries {
            precondition(entry.value.sequence <= lastSequence,
                         "PendingChanges: \(entry.key) at sequence \(entry.value.sequence), after the last, \(lastSequence)")
        }
    }
}
