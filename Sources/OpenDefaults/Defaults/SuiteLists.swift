import PlatformIO
import Synchronization

/// The suites of each application domain in one store: one list per
/// application, shared by every ``Defaults`` object of that domain and by
/// ``CFPreferences`` (`CFPreferencesAddSuitePreferencesToApp`), as on Apple
/// platforms. A change rebuilds every search list of the application.
final class SuiteLists: Sendable {
    private struct State {
        var suites: [String: [String]] = [:]
        var members: [String: [ObjectIdentifier: Weak<SearchList>]] = [:]
    }

    private let state = Lock(State())

    /// The suites of `application`, in the order added.
    func suites(of application: String) -> [String] {
        state.withLock { $0.suites[application] ?? [] }
    }

    /// Adds `suite` to `application`'s list; false when it was there already.
    @discardableResult
    func add(_ suite: String, to application: String) -> Bool {
        let members = state.withLock { s -> [SearchList]? in
            guard !(s.suites[application] ?? []).contains(suite) else { return nil }
            s.suites[application, default: []].append(suite)
            return s.members[application]?.values.compactMap(\.object)
        }
        guard let members else { return false }
        for list in members { list.rebuildAndNotify() }
        return true
    }

    /// Removes `suite` from `application`'s list; false when it was not there.
    @discardableResult
    func remove(_ suite: String, from application: String) -> Bool {
        let members = state.withLock { s -> [SearchList]? in
            guard let i = s.suites[application]?.firstIndex(of: suite) else { return nil }
            s.suites[application]!.remove(at: i)
            if s.suites[application]!.isEmpty { s.suites[application] = nil }
            return s.members[application]?.values.compactMap(\.object)
        }
        guard let members else { return false }
        for list in members { list.rebuildAndNotify() }
        return true
    }

    /// `list` is rebuilt when its application's suites change (until it leaves).
    func join(_ list: SearchList) {
        state.withLock { $0.members[list.domainName, default: [:]][ObjectIdentifier(list)] = Weak(list) }
    }

    /// `list` no longer hears of suite changes.
    func leave(_ list: SearchList) {
        state.withLock { s in
            s.members[list.domainName]?[ObjectIdentifier(list)] = nil
            if s.members[list.domainName]?.isEmpty == true { s.members[list.domainName] = nil }
        }
    }
}
