import PlatformIO
import SharedTables
import PropertyList
import Synchronization

extension SearchList {
    /// The sources in the search list's order (the managed domains first, the arguments when
    /// given, the persistent domains, the languages, the registration last); the persistent and
    /// managed lists exactly the sources of their kind, in that order; the resolved view the
    /// union of the sources recomputed, and the forced view the managed sources' union.
    ///
    /// O(every key of every source), for tests. The view follows its sources a moment later when
    /// another thread changes them (a reload the file watcher started, a flush's merge): a test
    /// checks at rest, or waits for ``_invariantViolations()`` to come back empty.
    func _checkInvariants() {
        let violations = _invariantViolations()
        precondition(violations.isEmpty, "SearchList: \(violations.joined(separator: "; "))")
    }

    /// What ``_checkInvariants()`` finds broken, in words; empty when nothing is.
    func _invariantViolations() -> [String] {
        var found: [String] = []
        func check(_ holds: Bool, _ what: @autoclosure () -> String) { if !holds { found.append(what()) } }
        let registered = registration.values.withLock { $0 }
        let version = registration.version.load(ordering: .acquiring)
        return state.withLock { s -> [String] in
            var rank = 0   // 0 forced, 1 arguments, 2 persistent, 3 languages, 4 registration
            var persistent: [PersistentDomain] = [], managed: [ManagedDomain] = []
            for source in s.sources {
                let r: Int
                switch source {
                case .forced(let m): r = 0; m.withObject { managed.append($0) }
                case .arguments: r = 1; check(!arguments.isEmpty, "an argument source with no arguments")
                case .persistent(let d): r = 2; d.withObject { persistent.append($0) }
                case .languages: r = 3
                case .registration: r = 4
                }
                check(r >= rank, "sources out of the search list's order")
                rank = r
            }
            check(s.sources.last.map { if case .registration = $0 { true } else { false } } ?? false, "the registration domain is not last")
            check(persistent.count == s.persistentDomains.count && zip(persistent, s.persistentDomains).allSatisfy { $0 === $1 },
                         "the persistent domains differ from the persistent sources")
            check(managed.count == s.managedDomains.count && zip(managed, s.managedDomains).allSatisfy { $0 === $1 },
                         "the managed domains differ from the managed sources")
            var resolved = s.resolved, forced = s.forced
            // (A registration newer than the view is picked up at the next read: only a current view is compared.)
            if s.registrationVersion == version {
                let view = resolved.dictionary(), union = resolveAll(s, registration: registered)
                if view != union {
                    let differing = Set(view.keys).union(union.keys).filter { view[$0] != union[$0] }.prefix(5)
                        .map { "\($0.string): \(view[$0].map { "\($0)" } ?? "absent") in the view, \(union[$0].map { "\($0)" } ?? "absent") in the sources" }
                    check(false, "the resolved view is not the union of its sources: \(differing.joined(separator: "; "))")
                }
            }
            check(forced.dictionary() == forcedUnion(s), "the forced view is not the union of the managed sources")
            for list in s.keyObservers.values { list._checkInvariants() }
            s.anyObservers._checkInvariants()
            return found
        }
    }
}
