import PlatformIO
import SharedTables
package import PropertyList
import Synchronization

/// The values an administrator forces for one domain, from
/// `<managed>/<domain>.plist` (everyone) and
/// `<managed>/users/<name>/<domain>.plist` (one user, which wins; the name
/// comes from the process's user id, never from the environment).
///
/// A file is honoured only when ``SystemFileTrust`` trusts its whole path:
/// every folder from `/` down and the file itself owned by root and not
/// writable by others, and no symbolic link on the way that anyone but
/// root could have made. A file that fails the check is ignored and
/// reported. The files are watched: a change reaches every defaults object
/// (and `didChangeNotification`) within milliseconds.
///
/// ```swift
/// let forced = DomainStore.shared.managedDomain("com.example.app")
/// forced.value(forKey: "UpdateURL")   // the administrator's value, if any
/// ```
package final class ManagedDomain: Sendable {
    /// The domain's name.
    package let name: String
    /// The files consulted, in increasing precedence.
    package let paths: [String]
    private struct State {
        var values: [LiteralString: PropertyList] = [:]
        /// Told of every change (defaults objects' search lists).
        var dependents = DependentList()
        /// What was last reported untrusted or unreadable, so that a watcher
        /// reload does not repeat the same report.
        var reported: Set<String> = []
    }
    private let state: Lock<State>
    /// The number of forced keys: an empty managed domain in a search list
    /// is skipped without a lock (on every write's resolve).
    let entryCount = Atomic<Int>(0)
    /// The store, held strongly as ``PersistentDomain`` holds it (the store caches managed domains weakly).
    private let store: DomainStore

    init(name: String, paths: [String], store: DomainStore) {
        self.name = name
        self.paths = paths
        self.store = store
        self.state = Lock(State())
        reload()
    }

    /// The forced value of `key`, if any.
    @inline(__always)
    package func value(forKey key: String) -> PropertyList? { state.withLock { $0.values[key] } }

    /// Every forced key and value.
    package var entries: [LiteralString: PropertyList] { state.withLock { $0.values } }

    /// Re-reads the managed files and tells dependents what changed.
    package func reload() {
        let (merged, problems) = Self.read(name: name, paths: paths)
        publish(merged, problems)
    }

    /// Every forced key and value of `name` from `paths` (later files win),
    /// and the problems of the files that were not honoured, by path.
    static func read(name: String, paths: [String]) -> ([LiteralString: PropertyList], [String: StorageError]) {
        var merged: [LiteralString: PropertyList] = [:]
        var problems: [String: StorageError] = [:]
        for path in paths {
            switch SystemFileTrust.check(path) {
            case .absent: continue
            case .untrusted(let why):
                problems[path] = StorageError(domain: name, path: path, kind: .unreadable, reason: "ignored: \(why)")
                continue
            case .trusted: break
            }
            switch DomainFile(domain: name, path: path).read() {
            case .loaded(let entries, _, _): merged.merge(entries) { _, user in user }
            case .corrupt(let error):
                problems[path] = StorageError(domain: name, path: path, kind: .corrupt(movedTo: nil), reason: error.description)
            case .unreadable(let error): problems[path] = error
            case .absent: break
            }
        }
        return (merged, problems)
    }

    private func publish(_ merged: [LiteralString: PropertyList], _ problems: [String: StorageError]) {
        let (changes, dependents, newProblems) = state.withLock { s in
            let changes = DomainChange.diff(s.values, merged)
            s.values = merged
            entryCount.store(merged.count, ordering: .releasing)
            let fresh = problems.filter { !s.reported.contains($0.value.description) }.map(\.value)
            s.reported = Set(problems.values.map(\.description))
            return (changes, s.dependents.snapshot, fresh)
        }
        for problem in newProblems { store.report(problem) }
        guard !changes.isEmpty else { return }
        let change = DomainChange(domain: name, scope: .anyUser, changes: changes, origin: .otherProcess)
        dependents.forEach { $0.domainChanged(change) }
        store.deliver(change)
    }

    /// Adds a dependent, told of every change until detached.
    func attach(_ dependent: any DomainDependent) {
        state.withLock { $0.dependents.attach(dependent) }
    }

    /// Removes a dependent.
    func detach(_ dependent: any DomainDependent) {
        state.withLock { $0.dependents.detach(dependent) }
    }
}
