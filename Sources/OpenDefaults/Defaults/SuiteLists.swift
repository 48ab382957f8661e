import PlatformIO
import SharedTables
import PropertyList
import Synchronization

/// The suites of each application domain in one store: one list per
/// application, shared by every ``Defaults`` object of that domain and by
/// ``CFPreferences`` (`CFPreferencesAddSuitePreferencesToApp`), as on Apple
/// platforms. A change rebuilds every search list of the application.
/// Names compare by their exact scalars: two that look alike are two
/// applications, or two suites.
final class SuiteLists: Sendable {
    private struct State {
        var suites: [LiteralString: [LiteralString]] = [:]
        /// Held strongly until they leave (their defaults object's deinit):
        /// a weak reference would give each list a side table, and every
        /// retain of it on the write path would take the slow path.
        var members: [LiteralString: [ObjectIdentifier: SearchList]] = [:]
    }

    private let state = Lock(State())

    /// The suites of `application`, in the order added.
    func suites(of application: String) -> [String] {
        state.withLock { $0.suites[LiteralString(application)]?.map(\.string) ?? [] }
    }

    /// Adds `suite` to `application`'s list; false when it was there already.
    @discardableResult
    func add(_ suite: String, to application: String) -> Bool {
        let app = LiteralString(application), suite = LiteralString(suite)
        let members = state.withLock { s -> [SearchList]? in
            guard !(s.suites[app] ?? []).contains(suite) else { return nil }
            s.suites[app, default: []].append(suite)
            return s.members[app].map { Array($0.values) }
        }
        guard let members else { return false }
        for list in members { list.rebuildAndNotify() }
        return true
    }

    /// Removes `suite` from `application`'s list; false when it was not there.
    @discardableResult
    func remove(_ suite: String, from application: String) -> Bool {
        let app = LiteralString(application), suite = LiteralString(suite)
        let members = state.withLock { s -> [SearchList]? in
            guard let i = s.suites[app]?.firstIndex(of: suite) else { return nil }
            s.suites[app]!.remove(at: i)
            if s.suites[app]!.isEmpty { s.suites[app] = nil }
            return s.members[app].map { Array($0.values) }
        }
        guard let members else { return false }
        for list in members { list.rebuildAndNotify() }
        return true
    }

    /// `list` is rebuilt when its application's suites change (until it leaves).
    func join(_ list: SearchList) {
        state.withLock { $0.members[LiteralString(list.domainName), default: [:]][ObjectIdentifier(list)] = list }
    }

    /// The search lists held (tests: a released defaults object's list leaves).
    var memberCount: Int { state.withLock { $0.members.values.reduce(0) { $0 + $1.count } } }

    /// `list` no longer hears of suite changes.
    func leave(_ list: SearchList) {
        let app = LiteralString(list.domainName)
        state.withLock { s in
            s.members[app]?[ObjectIdentifier(list)] = nil
            if s.members[app]?.isEmpty == true { s.members[app] = nil }
        }
    }
}
