import Dispatch
import PlatformIO
import SharedTables
public import PropertyList
import Synchronization

/// Where persistent domains live: the files of one ``PreferencesLayout``,
/// each domain loaded once while in use, written in coalesced bursts (and
/// journaled at once), flushed when released or at exit, and kept coherent
/// with other processes' writes through a file watcher. ``Defaults`` objects
/// use ``shared`` unless given another (a sandbox, a test).
///
/// ```swift
/// let store = DomainStore.shared
/// let token = store.observe { change in print(change.domain, change.changes.keys) }
/// Defaults(domainName: "com.example.app", store: store).set(1, forKey: "launches")
/// ```
public final class DomainStore: Sendable {
    /// The store for this process's environment (``PreferencesLayout/current``).
    public static let shared = DomainStore(layout: .current)

    /// How long after a write its flush starts, so that a burst of writes
    /// becomes one file write. Pending changes are also flushed by
    /// `synchronize()` and when the process exits normally.
    public static let flushDelay: Duration = .milliseconds(20)

    /// The file layout in use.
    public let layout: PreferencesLayout

    /// A domain's place in the cache: its name compared by its exact
    /// scalars (two names that look alike are two domains, as on Apple
    /// platforms), and its scope.
    private struct Key: Hashable, Sendable {
        let name: LiteralString
        let scope: PreferenceScope
        init(name: String, scope: PreferenceScope) {
            self.name = LiteralString(name)
            self.scope = scope
        }
        /// A domain kept in an arbitrary file (``DomainStore/domain(atPath:)``).
        static func file(_ path: String) -> Key { Key(name: "file:" + path, scope: .currentUser) }
    }

    /// The loaded domains, held weakly: each domain holds this store, and is
    /// held by whoever uses it (proposal 0009).
    private let domains = WeakCache<Key, PersistentDomain>()
    private let managed = WeakCache<LiteralString, ManagedDomain>()
    /// Told of every change to a loaded domain (``observe(_:)``).
    private let observers = ObserverRegistry<@Sendable (DomainChange) -> Void>()
    private let errorHandler = Lock<@Sendable (StorageError) -> Void>({ error in
        StandardStream.error.print("OpenDefaults: \(error)")
    })
    /// Made on first use: a process that only peeks at files (`defaults
    /// read D K`) never makes an inotify instance nor a dispatch queue.
    var watcher: FileWatcher {
        lazyWatcher.withLock { w in
            if let w { return w }
            let made = FileWatcher(owner: self)
            w = made
            return made
        }
    }
    private let lazyWatcher = Lock<FileWatcher?>(nil)

    /// A store over `layout` (tests use their own; applications use ``shared``).
    /// A store lives while something holds it (a ``Defaults`` object over it,
    /// an observation, a pending flush); when released it flushes what is
    /// pending, closes its journals and stops watching. Stores still alive
    /// when the process exits are flushed then.
    ///
    /// ```swift
    /// let store = DomainStore(layout: PreferencesLayout(userDirectory: "/tmp/prefs"))
    /// ```
    public init(layout: PreferencesLayout) {
        self.layout = layout
        ExitFlush.register(self)
    }

    deinit {
        // Every domain was released before (each holds its store) and
        // flushed itself then; what is left is the watcher.
        lazyWatcher.withLock { $0 }?.stop()
    }

    /// The domain `name` in `scope`, loaded from disk on first use.
    @_spi(Engine) public func domain(_ name: String, scope: PreferenceScope = .currentUser) -> PersistentDomain {
        let (domain, made) = domains.object(Key(name: name, scope: scope)) {
            PersistentDomain(name: name, scope: scope, file: file(for: name, scope: scope), store: self)
        }
        if made, domain.file.refusal == nil {
            watcher.watch(domain)
            if domain.file.journaled {
                let journalWatch = JournalWatch(domain)
                domain.journalWatch.withLock { $0 = journalWatch }
                watcher.watch(journalWatch)
            }
        }
        return domain
    }

    /// The file of `name` in `scope`. A name that cannot be a file name
    /// (``PreferencesLayout/validateDomainName(_:)``) gets none: the domain
    /// lives in memory, is reported once, and its writes fail with the reason.
    func file(for name: String, scope: PreferenceScope) -> DomainFile {
        let mode: UInt32 = scope.user == .current ? 0o600 : 0o644
        do throws(StorageError) {
            try PreferencesLayout.validateDomainName(name)
        } catch {
            report(error)
            return DomainFile(domain: name, path: "", mode: mode, refusal: error)
        }
        return DomainFile(domain: name, path: layout.path(for: name, scope: scope), mode: mode, journaled: true)
    }

    /// Reads one key of a domain without loading the domain, for a process
    /// that wants one value once (`defaults read D K`, a script, a plugin).
    ///
    /// A domain this process has already loaded answers from memory. Otherwise
    /// the file is read and, when it is a binary property list, searched in
    /// place: only the value found is decoded, so one key of a 100,000-key
    /// domain costs a scan of its keys. A file that cannot be read or parsed
    /// falls back to ``domain(_:scope:)``, which reports it (and moves a
    /// corrupt file aside) as usual. The domain is not kept or watched.
    ///
    /// ```swift
    /// let theme = DomainStore.shared.value(forKey: "Theme", inDomain: "com.example.app")
    /// ```
    public func value(forKey key: String, inDomain name: String, scope: PreferenceScope = .currentUser) -> PropertyList? {
        if let loaded = domains.existing(Key(name: name, scope: scope)) { return loaded.value(forKey: key) }
        guard PreferencesLayout.isValidDomainName(name) else { return domain(name, scope: scope).value(forKey: key) }
        let path = layout.path(for: name, scope: scope)
        // A journal left by a process that died before its flush is replayed
        // by loading the domain (under its lock) before anything is read.
        if JournalRecovery.hasOrphans(forDomainFile: path) { return domain(name, scope: scope).value(forKey: key) }
        return value(forKey: key, atPath: path) {
            self.domain(name, scope: scope).value(forKey: key)
        }
    }

    /// ``value(forKey:inDomain:scope:)`` for a domain kept in an arbitrary file.
    package func value(forKey key: String, inDomainAtPath path: String) -> PropertyList? {
        if let loaded = domains.existing(Key.file(path)) { return loaded.value(forKey: key) }
        return value(forKey: key, atPath: path) { self.domain(atPath: path).value(forKey: key) }
    }

    private func value(forKey key: String, atPath path: String, loading: () -> PropertyList?) -> PropertyList? {
        // Only a regular file is read here (a FIFO would block); anything
        // else goes through the full load, which reports it.
        guard case .success(let found) = FileSignature.lookup(path) else { return loading() }
        guard let signature = found else { return nil }
        guard signature.isRegularFile else { return loading() }
        // Mapped, not read: a binary plist we wrote is binary-searched in
        // place, so only the pages on the way to the key are touched.
        enum Lookup { case found(PropertyList?), needsFullLoad }
        let lookup = (try? FileIO.withMappedRegularFile(path) { bytes -> Lookup in
            if bytes.isEmpty { return .needsFullLoad }
            do { return .found(try PropertyList.value(forKey: key, decoding: bytes)) } catch { return .needsFullLoad }
        }) ?? .needsFullLoad
        switch lookup {
        case .found(let value): return value
        case .needsFullLoad: return loading()  // unreadable, empty or unparsable: reported by the full load
        }
    }

    /// A domain kept in an arbitrary property-list file (`defaults read
    /// /path/to/file`): the same locking, merging and durable writes.
    @_spi(Engine) public func domain(atPath path: String) -> PersistentDomain {
        let (domain, made) = domains.object(Key.file(path)) {
            PersistentDomain(name: path, scope: .currentUser, file: DomainFile(domain: path, path: path), store: self)
        }
        if made { watcher.watch(domain) }
        return domain
    }

    /// The values forced by an administrator for `name`.
    package func managedDomain(_ name: String) -> ManagedDomain {
        let (domain, made) = managed.object(LiteralString(name)) {
            ManagedDomain(name: name, paths: layout.managedPaths(for: name), store: self)
        }
        if made { watcher.watch(domain) }
        return domain
    }

    /// The values forced for `name` now, read once (from the watched managed
    /// domain when one is loaded; else from the files, without watching them:
    /// for one-shot tools).
    package func forcedValues(_ name: String) -> [LiteralString: PropertyList] {
        if let existing = managed.existing(LiteralString(name)) { return existing.entries }
        return ManagedDomain.read(name: name, paths: layout.managedPathsToRead(for: name)).0
    }

    /// Each managed file of `name` with what it forces, in increasing
    /// precedence (see ``PreferencesLayout/managedPaths(for:)``); files absent
    /// or not trusted are left out. For tools that say where a value comes from.
    package func forcedValuesByFile(_ name: String) -> [(path: String, entries: [LiteralString: PropertyList])] {
        layout.managedPathsToRead(for: name).compactMap { path in
            let entries = ManagedDomain.read(name: name, paths: [path]).0
            return entries.isEmpty ? nil : (path, entries)
        }
    }

    /// The domains loaded so far.
    package var loadedDomains: [PersistentDomain] { domains.objects }

    /// The names of the domains that have a file in `scope`.
    public func persistentDomainNames(scope: PreferenceScope = .currentUser) -> [String] {
        let directory = layout.directory(for: scope)
        guard let entries = FileIO.directoryEntries(directory) else { return [] }
        var names: Set<String> = []
        let hostSuffix = ".\(layout.hostIdentifier).plist"
        for name in entries {
            guard name.hasSuffix(".plist"), !name.hasPrefix(".") || name == PreferencesLayout.globalDomainFileStem + ".plist"
                || name == PreferencesLayout.globalDomainFileStem + hostSuffix
            else { continue }
            // A folder (or anything but a file) named like a domain's file is not a domain.
            guard (try? FileStatus.of(directory + "/" + name))?.kind == .regular else { continue }
            var stem: Substring
            if scope.host == .current {
                guard name.hasSuffix(hostSuffix) else { continue }
                stem = name.dropLast(hostSuffix.count)
            } else {
                stem = name.dropLast(6)
            }
            names.insert(PreferencesLayout.domainName(forFileStem: String(stem)))
        }
        // Domains created in memory but not yet flushed.
        for d in loadedDomains where d.scope == scope && !d.isEmpty { names.insert(d.name) }
        return names.sorted()
    }

    // MARK: Flushing

    /// Flushes `domain` after ``flushDelay``. The pending flush keeps the store (the
    /// domain's owner) alive until it has run.
    func scheduleFlush(_ domain: PersistentDomain) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(Self.flushDelay / .nanoseconds(1)))) { [self] in
            withExtendedLifetime(self) { try? domain.flush() }
        }
    }

    /// Flushes every domain's pending changes now.
    ///
    /// - Throws: the first ``StorageError`` met; every domain is still tried.
    public func flushAll() throws(StorageError) {
        var first: StorageError? = nil
        for d in loadedDomains where d.hasPendingChanges {
            do { try d.flush() } catch { first = first ?? error }
        }
        if let first { throw first }
    }

    /// Flushes pending changes and reloads every loaded domain (and the
    /// managed preferences) from disk.
    public func synchronizeAll() throws(StorageError) {
        for m in managed.objects { m.reload() }
        var first: StorageError? = nil
        for d in loadedDomains {
            do { try d.synchronize() } catch { first = first ?? error }
        }
        if let first { throw first }
    }

    // MARK: Observation

    /// Calls `handler` after every change to a loaded domain, by this process
    /// or another: for this process's writes on the writing thread, right
    /// after the write; for other processes' on the watcher's thread. No lock
    /// is held while it runs. Keep the token; observation ends when it is released.
    public func observe(_ handler: @escaping @Sendable (DomainChange) -> Void) -> ObservationToken {
        let id = observers.add(handler)
        return ObservationToken { [observers] in observers.remove(id) }
    }

    /// True when some observer is registered with ``observe(_:)``.
    var hasHandlers: Bool { !observers.isEmpty }

    /// Calls the observers (the domain has told its dependents already).
    func deliver(_ change: DomainChange) {
        for h in observers.handlers { h(change) }
    }

    // MARK: Errors

    /// Where storage errors go besides the API (standard error by default).
    public func setErrorHandler(_ handler: @escaping @Sendable (StorageError) -> Void) {
        errorHandler.withLock { $0 = handler }
    }

    func report(_ error: StorageError) {
        let handler = errorHandler.withLock { $0 }
        handler(error)
    }
}
