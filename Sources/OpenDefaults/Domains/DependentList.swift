import PropertyList

/// The dependents of a domain (persistent or managed), each once.
struct DependentList {
    private(set) var all: [any DomainDependent] = []
    /// ``all`` as the write path takes it out of the domain's lock.
    private(set) var snapshot = Snapshot.many([])

    /// The dependents as one write tells them.
    ///
    /// A domain usually has one dependent (the search list of the one defaults
    /// object over it). Taken out of the lock as an array, it cost a retain of
    /// the array and another of its element, and their releases: a fifth of a
    /// `set`'s atomic operations. Held apart, it costs one of each.
    enum Snapshot {
        case one(any DomainDependent)
        case many([any DomainDependent])
    }

    /// Adds `dependent` unless it is there already.
    mutating func attach(_ dependent: any DomainDependent) {
        if !all.contains(where: { $0 === dependent }) { all.append(dependent) }
        snapshot = all.count == 1 ? .one(all[0]) : .many(all)
        _checkInvariantsAfterChange()
    }

    /// Removes `dependent`.
    mutating func detach(_ dependent: any DomainDependent) {
        all.removeAll { $0 === dependent }
        snapshot = all.count == 1 ? .one(all[0]) : .many(all)
        _checkInvariantsAfterChange()
    }

    /// Each dependent once, and ``snapshot`` the same dependents as ``all``, in order.
    func _checkInvariants() {
        for (i, d) in all.enumerated() {
            precondition(!all[..<i].contains { $0 === d }, "DependentList: a dependent attached twice")
        }
        switch snapshot {
        case .one(let d): precondition(all.count == 1 && all[0] === d, "DependentList: one dependent in the snapshot, \(all.count) attached")
        case .many(let ds):
            precondition(all.count != 1 && ds.count == all.count && zip(ds, all).allSatisfy { $0 === $1 },
                         "DependentList: the snapshot's \(ds.count) dependents are not the \(all.count) attached")
        }
    }

    /// Run after every change in debug builds (attaching and detaching are rare).
    @inline(__always)
    func _checkInvariantsAfterChange() {
        #if DEBUG
        _checkInvariants()
        #endif
    }
}
