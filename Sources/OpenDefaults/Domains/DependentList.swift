import PropertyList

/// The dependents of a domain (persistent or managed), each once.
///
/// A domain usually has one dependent (the search list of the one defaults object over it).
/// Taken out of the domain's lock as an array, it cost a retain of the array and another of its
/// element, and their releases: a fifth of a `set`'s atomic operations. So the list is kept as
/// the write path takes it out of the lock: one dependent apart, several as an array.
struct DependentList {
    /// The dependents, as the write path takes them out of the domain's lock.
    private(set) var snapshot = Snapshot.many([])

    /// The dependents as one write tells them: one apart, any other number as an array.
    enum Snapshot {
        case one(any DomainDependent)
        case many([any DomainDependent])

        init(_ all: [any DomainDependent]) {
            self = all.count == 1 ? .one(all[0]) : .many(all)
        }

        /// Calls `body` with each dependent, in the order they were attached.
        @inline(__always)
        func forEach(_ body: (any DomainDependent) -> Void) {
            switch self {
            case .one(let d): body(d)
            case .many(let all): for d in all { body(d) }
            }
        }
    }

    /// Every dependent, in the order they were attached.
    var all: [any DomainDependent] {
        switch snapshot {
        case .one(let d): [d]
        case .many(let all): all
        }
    }

    /// Adds `dependent` unless it is there already.
    mutating func attach(_ dependent: any DomainDependent) {
        var all = self.all
        if !all.contains(where: { $0 === dependent }) { all.append(dependent) }
        snapshot = Snapshot(all)
        _checkInvariantsAfterChange()
    }

    /// Removes `dependent`.
    mutating func detach(_ dependent: any DomainDependent) {
        var all = self.all
        all.removeAll { $0 === dependent }
        snapshot = Snapshot(all)
        _checkInvariantsAfterChange()
    }

    /// Each dependent once, and one dependent always held apart (``Snapshot/one(_:)``).
    func _checkInvariants() {
        let all = self.all
        for (i, d) in all.enumerated() {
            precondition(!all[..<i].contains { $0 === d }, "DependentList: a dependent attached twice")
        }
        if case .many(let ds) = snapshot { precondition(ds.count != 1, "DependentList: one dependent kept in an array") }
    }

    /// Run after every change in debug builds (attaching and detaching are rare).
    @inline(__always)
    func _checkInvariantsAfterChange() {
        #if DEBUG
        _checkInvariants()
        #endif
    }
}
