#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import PlatformIO
package import SharedTables
@_spi(Engine) public import OpenDefaults
public import PropertyList
import Synchronization

/// `NSUbiquitousKeyValueStore` on Linux: a small key-value store per
/// application that follows the user to every machine logged in to the same
/// sync account.
///
/// Local first: reads and writes touch only the local copy (an OpenDefaults
/// domain under `$XDG_DATA_HOME/opendefaults/ubiquity/<account>/`), which
/// survives restarts and works offline; a sync engine uploads writes
/// (coalesced) and long-polls the server for others' changes. Changes that
/// come from elsewhere — another machine, a conflict this machine lost, a
/// refused write, a new account — are reported through
/// ``externalChanges()`` (and, with `OpenDefaultsFoundation`, as
/// `didChangeExternallyNotification`); this process's own writes are not.
///
/// ```swift
/// let store = UbiquitousKeyValueStore.default
/// store.set("dark", forKey: "theme")
/// store.string(forKey: "theme")          // "dark", at once
/// for await change in store.externalChanges() {
///     print(change.reason, change.changedKeys)
/// }
/// ```
///
/// Limits (``UbiquityLimits``): 1,024 keys, 1 MB of values, 1 MB per value,
/// keys of 1 to 64 bytes. A write that breaks one changes nothing and is
/// reported as ``UbiquityChangeReason/quotaViolationChange``
/// (``setOrThrow(_:forKey:)`` throws instead).
public final class UbiquitousKeyValueStore: Sendable {
    /// The store's identifier (the application's identifier for ``default``).
    public let storeIdentifier: String
    let configuration: Configuration

    /// How a store finds its account, its server and its folder.
    public struct Configuration: Sendable {
        /// The folder of the local copies (`$XDG_DATA_HOME/opendefaults/ubiquity` when nil).
        public var dataDirectory: String?
        /// Makes the transport for an account; nil keeps the store local only.
        public var transport: (@Sendable (UbiquityAccount) -> any UbiquityTransport)?
        /// A fixed account; nil follows `ubiquity login` (``UbiquityAccount/current(in:)``) and its changes.
        public var account: UbiquityAccount?
        /// Whether the store keeps a download open (the server's event stream) to hear of changes at once.
        public var watches: Bool
        /// The defaults store that holds the local copies and the login.
        public var domainStore: DomainStore

        /// A configuration.
        public init(dataDirectory: String? = nil, transport: (@Sendable (UbiquityAccount) -> any UbiquityTransport)? = nil,
                    account: UbiquityAccount? = nil, watches: Bool = true, domainStore: DomainStore = .shared) {
            self.dataDirectory = dataDirectory
            self.transport = transport
            self.account = account
            self.watches = watches
            self.domainStore = domainStore
        }
    }

    /// One account's copy of the store and its engine.
    final class Session: Sendable {
        let accountIdentifier: String
        let replica: LocalReplica
        let engine: SyncEngine?
        init(accountIdentifier: String, replica: LocalReplica, engine: SyncEngine?) {
            self.accountIdentifier = accountIdentifier
            self.replica = replica
            self.engine = engine
        }
    }

    /// The current session, read without a lock (a read is a dictionary
    /// lookup: a lock here would double its cost). Every session made stays
    /// in `sessions` until the store ends, so a reader never holds a freed one.
    let current: Atomic<UInt>
    let sessions: Lock<[Session]>
    /// Swaps of the session, one at a time.
    let swapping = Lock<Void?>(nil)

    @inline(__always)
    var session: Session {
        Unmanaged<Session>.fromOpaque(UnsafeRawPointer(bitPattern: current.load(ordering: .acquiring))!).takeUnretainedValue()
    }

    /// The store, weakly, for its engines' reports (an engine must not keep its store alive).
    final class StoreReference: Sendable {
        struct Box { weak var store: UbiquitousKeyValueStore? }
        private let box = Lock(Box())
        func set(_ store: UbiquitousKeyValueStore) { box.withLock { $0.store = store } }
        var store: UbiquitousKeyValueStore? { box.withLock { $0.store } }
    }
    let reference = StoreReference()
    let subscribers = Lock<[UInt64: AsyncStream<UbiquityExternalChange>.Continuation]>([:])
    let nextSubscriber = Lock<UInt64>(0)
    let loginObservation = Lock<ObservationToken?>(nil)
    /// The login's domain, held so that its changes (by `ubiquity login` in another process) are watched.
    let loginDomain: PersistentDomain?

    // MARK: Creating stores

    /// The transport ``default`` and ``init(storeIdentifier:)`` use; set once
    /// at launch (`UbiquityHTTP.install()` sets the HTTP one).
    ///
    /// ```swift
    /// UbiquitousKeyValueStore.defaultTransport = { account in HTTPUbiquityTransport(account: account) }
    /// ```
    public static var defaultTransport: (@Sendable (UbiquityAccount) -> any UbiquityTransport)? {
        get { transportFactory.withLock { $0 } }
        set { transportFactory.withLock { $0 = newValue } }
    }
    private static let transportFactory = Lock<(@Sendable (UbiquityAccount) -> any UbiquityTransport)?>(nil)
    private static let defaultInstance = Lock<UbiquitousKeyValueStore?>(nil)

    /// The store of the application's identifier (``Defaults/applicationIdentifier``).
    public static var `default`: UbiquitousKeyValueStore {
        defaultInstance.withLock { d in
            if let d { return d }
            let made = UbiquitousKeyValueStore(storeIdentifier: Defaults.applicationIdentifier)
            d = made
            return made
        }
    }

    /// The store named `storeIdentifier`, shared by the applications that name it.
    public convenience init(storeIdentifier: String) {
        self.init(storeIdentifier: storeIdentifier, configuration: Configuration(transport: Self.defaultTransport))
    }

    /// A store with an explicit configuration (a fixed account, a folder, a transport).
    ///
    /// ```swift
    /// let store = UbiquitousKeyValueStore(storeIdentifier: "com.example.notes",
    ///     configuration: .init(dataDirectory: "/tmp/kv", transport: nil))   // local only
    /// ```
    public init(storeIdentifier: String, configuration: Configuration) {
        precondition(Self.isValidStoreIdentifier(storeIdentifier),
                     "invalid store identifier \"\(storeIdentifier)\": expected 1 to 255 letters, digits, '.', '-' or '_', not starting with '.'")
        self.storeIdentifier = storeIdentifier
        self.configuration = configuration
        loginDomain = configuration.account == nil ? UbiquityAccount.domain(in: configuration.domainStore) : nil
        let account = configuration.account ?? UbiquityAccount.current(in: configuration.domainStore)
        let first = Self.makeSession(storeIdentifier, configuration, account, reference: reference)
        current = Atomic(UInt(bitPattern: Unmanaged.passUnretained(first).toOpaque()))
        sessions = Lock([first])
        reference.set(self)
        if configuration.account == nil {
            let domain = UbiquityAccount.domainName
            let token = configuration.domainStore.observe { [weak self] change in
                guard change.domain == domain else { return }
                self?.accountMayHaveChanged()
            }
            loginObservation.withLock { $0 = token }
        }
        startEngine()
    }

    deinit {
        loginObservation.withLock { $0?.cancel() }
        for s in sessions.withLock({ $0 }) { s.engine?.stop() }
        subscribers.withLock { for c in $0.values { c.finish() } }
    }

    /// Letters, digits, `.`, `-`, `_`; 1 to 255 bytes; not starting with `.`.
    public static func isValidStoreIdentifier(_ s: String) -> Bool { UbiquityLimits.isValidStoreIdentifier(s) }

    static func folder(_ configuration: Configuration, accountIdentifier: String) -> String {
        var base = configuration.dataDirectory ?? ""
        if base.isEmpty {
            base = UserDirectories.data + "/opendefaults/ubiquity"
        }
        return base + "/" + accountIdentifier
    }

    static func makeSession(_ id: String, _ configuration: Configuration, _ account: UbiquityAccount?,
                            reference: StoreReference) -> Session {
        let accountID = account?.identifier ?? "local"
        let replica = LocalReplica(folder: folder(configuration, accountIdentifier: accountID), storeIdentifier: id,
                                   domainStore: configuration.domainStore)
        var engine: SyncEngine? = nil
        if let account, let factory = configuration.transport {
            engine = SyncEngine(replica: replica, transport: factory(account), storeIdentifier: id) { change in
                reference.store?.deliver(change)
            }
        }
        return Session(accountIdentifier: accountID, replica: replica, engine: engine)
    }

    private func startEngine() {
        guard configuration.watches else { return }
        startWatching()
    }

    /// Starts following the server's event stream now, for a store made with `watches: false`
    /// (subscribe to ``externalChanges()`` first to hear of the initial sync).
    public func startWatching() {
        watchRequested.withLock { $0 = true }
        engine?.startWatching()
    }
    let watchRequested = Lock(false)

    /// The login changed (this or another process): swap the local copy when the account did.
    func accountMayHaveChanged() {
        let account = UbiquityAccount.current(in: configuration.domainStore)
        let newID = account?.identifier ?? "local"
        let swapped = swapping.withLock { _ -> (old: Session, new: Session)? in
            let old = session
            guard old.accountIdentifier != newID else { return nil }
            let fresh = Self.makeSession(storeIdentifier, configuration, account, reference: reference)
            sessions.withLock { $0.append(fresh) }
            current.store(UInt(bitPattern: Unmanaged.passUnretained(fresh).toOpaque()), ordering: .releasing)
            return (old, fresh)
        }
        guard let swapped else { return }
        swapped.old.engine?.stop()
        try? swapped.old.replica.synchronize()
        let keys = Set(swapped.old.replica.keys).union(swapped.new.replica.keys)
        deliver(UbiquityExternalChange(reason: .accountChange, changedKeys: keys.sorted()))
        if configuration.watches || watchRequested.withLock({ $0 }) { engine?.startWatching() }
    }

    @inline(__always)
    var replica: LocalReplica { session.replica }
    var engine: SyncEngine? { session.engine }

    /// Whether the last exchange with the server succeeded (nil: none yet, or no account).
    package var serverReachable: Bool? { engine?.isReachable }

    // MARK: Reading

    /// The value of `key`, or nil.
    ///
    /// ```swift
    /// store.propertyList(forKey: "theme")   // .string("dark")
    /// ```
    @inline(__always)
    public func propertyList(forKey key: String) -> PropertyList? { replica.value(forKey: key) }

    /// The value of `key` as Foundation types (`String`, `NSNumber`-compatible numbers, `Data`, `Date`, arrays, dictionaries).
    public func object(forKey key: String) -> Any? { propertyList(forKey: key)?.bridgedValue }

    /// The string of `key`, or nil when absent or not a string.
    public func string(forKey key: String) -> String? {
        if case .string(let s)? = propertyList(forKey: key) { return s }
        return nil
    }

    /// The array of `key` as Foundation types, or nil.
    public func array(forKey key: String) -> [Any]? {
        if case .array(let a)? = propertyList(forKey: key) { return a.map(\.bridgedValue) }
        return nil
    }

    /// The dictionary of `key` as Foundation types, or nil.
    public func dictionary(forKey key: String) -> [String: Any]? {
        if case .dictionary(let d)? = propertyList(forKey: key) { return d.keyedByString(\.bridgedValue) }
        return nil
    }

    /// The data of `key`, or nil.
    public func data(forKey key: String) -> Data? {
        if case .data(let d)? = propertyList(forKey: key) { return d }
        return nil
    }

    /// The integer of `key` (a real is truncated, a boolean is 0 or 1); 0 when absent.
    /// A real that is NaN or out of range reads as `Int64.min`, as in `Defaults` (``Coercion``).
    public func longLong(forKey key: String) -> Int64 {
        Int64(Coercion.integer(propertyList(forKey: key)))
    }

    /// The real of `key` (an integer converts); 0 when absent.
    public func double(forKey key: String) -> Double {
        Coercion.double(propertyList(forKey: key))
    }

    /// The boolean of `key` (a non-zero number is true, strings as `NSString.boolValue`); false when absent.
    public func bool(forKey key: String) -> Bool {
        Coercion.bool(propertyList(forKey: key))
    }

    /// Every key and value, as Foundation types.
    public var dictionaryRepresentation: [String: Any] { replica.entries.keyedByString(\.bridgedValue) }

    /// Every key and value.
    public var propertyLists: [LiteralString: PropertyList] { replica.entries }

    // MARK: Writing

    /// Sets `value` (nil removes the key), or throws for a broken limit; nothing changes then.
    ///
    /// ```swift
    /// try store.setOrThrow(.data(Data(count: 2_000_000)), forKey: "blob")   // throws valueTooLarge
    /// ```
    public func setOrThrow(_ value: PropertyList?, forKey key: String) throws(UbiquityError) {
        try replica.write(value, forKey: key)
        engine?.scheduleUpload()
    }

    /// Sets `value` (nil removes); a broken limit changes nothing and is
    /// reported as ``UbiquityChangeReason/quotaViolationChange``.
    public func setPropertyList(_ value: PropertyList?, forKey key: String) {
        do { try setOrThrow(value, forKey: key) } catch {
            deliver(UbiquityExternalChange(reason: .quotaViolationChange, changedKeys: [key]))
        }
    }

    /// Sets a Foundation value (`String`, numbers, `Bool`, `Data`, `Date`,
    /// arrays, dictionaries, NS objects); nil removes. A value that is not a
    /// property-list value is refused, like a broken limit.
    public func set(_ value: Any?, forKey key: String) {
        guard let value else { return setPropertyList(nil, forKey: key) }
        guard let typed = try? PropertyList(bridging: value) else {
            return deliver(UbiquityExternalChange(reason: .quotaViolationChange, changedKeys: [key]))
        }
        setPropertyList(typed, forKey: key)
    }

    /// Sets a string; nil removes.
    public func set(_ value: String?, forKey key: String) { setPropertyList(value.map(PropertyList.string), forKey: key) }
    /// Sets data; nil removes.
    public func set(_ value: Data?, forKey key: String) { setPropertyList(value.map(PropertyList.data), forKey: key) }
    /// Sets an array of property-list values; nil removes.
    public func set(_ value: [Any]?, forKey key: String) { set(value as Any?, forKey: key) }
    /// Sets a dictionary of property-list values; nil removes.
    public func set(_ value: [String: Any]?, forKey key: String) { set(value as Any?, forKey: key) }
    /// Sets an integer.
    public func set(_ value: Int64, forKey key: String) { setPropertyList(.integer(.init(value)), forKey: key) }
    /// Sets a real.
    public func set(_ value: Double, forKey key: String) { setPropertyList(.real(value), forKey: key) }
    /// Sets a boolean.
    public func set(_ value: Bool, forKey key: String) { setPropertyList(.boolean(value), forKey: key) }

    /// Removes `key`.
    public func removeObject(forKey key: String) { setPropertyList(nil, forKey: key) }

    // MARK: Synchronizing

    /// Writes the local copy to disk and starts an upload and a download.
    /// Returns false only when the local copy could not be written (as
    /// Apple's, it does not wait for the server).
    @discardableResult
    public func synchronize() -> Bool {
        let ok = (try? replica.synchronize()) != nil
        engine?.scheduleUpload()
        return ok
    }

    /// Uploads what is pending and downloads what is new, now.
    /// - Throws: ``UbiquityError/unreachable(_:)`` (the writes stay pending),
    ///   ``UbiquityError/unauthorized(_:)``, or ``UbiquityError/storage(_:)`` when there is no account or transport.
    public func synchronizeWithServer() async throws(UbiquityError) {
        guard let engine else { throw .storage("no sync account: log in with `ubiquity login <server-URL> <token>`") }
        try await engine.synchronizeNow()
        try replica.synchronize()
    }

    /// The writes not yet acknowledged by the server (their keys).
    public var pendingKeys: [String] { replica.pending().map(\.key) }

    // MARK: External changes

    /// The changes that come from elsewhere, as they happen (each call is a new stream).
    ///
    /// ```swift
    /// for await change in store.externalChanges() { print(change) }   // "ServerChange theme"
    /// ```
    public func externalChanges() -> AsyncStream<UbiquityExternalChange> {
        let id = nextSubscriber.withLock { n -> UInt64 in n += 1; return n }
        let (stream, continuation) = AsyncStream<UbiquityExternalChange>.makeStream(bufferingPolicy: .unbounded)
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    /// Observers of every store's external changes (the Foundation notification bridge).
    package static let globalObservers = ObserverRegistry<@Sendable (UbiquitousKeyValueStore, UbiquityExternalChange) -> Void>()

    func deliver(_ change: UbiquityExternalChange) {
        for c in subscribers.withLock({ Array($0.values) }) { c.yield(change) }
        for o in Self.globalObservers.handlers { o(self, change) }
    }
}
