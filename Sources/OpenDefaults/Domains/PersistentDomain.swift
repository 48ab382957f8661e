import Dispatch
import PlatformIO
import SharedTables
public import PropertyList
import Synchronization

/// One persistent domain as this process sees it: a parsed cache that reads
/// touch without a system call, this process's unflushed changes, and the
/// merge-on-flush that keeps every process's writes.
///
/// Obtain instances from ``DomainStore``; there is one per domain and scope
/// in a process.
///
/// ```swift
/// let domain = DomainStore.shared.domain("com.example.app", scope: .currentUser)
/// domain.set("Ada", forKey: "name")     // memory now, disk within the flush delay
/// domain.value(forKey: "name")          // "Ada"
/// try domain.synchronize()              // on disk, durably, now
/// ```
@_spi(Engine) public final class PersistentDomain: Sendable {
    /// The domain's name (`NSGlobalDomain` for the global domain).
    public let name: String
    /// The domain's scope.
    public let scope: PreferenceScope
    /// The domain's file.
    public let path: String

    let file: DomainFile
    /// The store this domain belongs to, held strongly: a domain keeps its
    /// store alive (the store only caches its domains weakly), so whoever
    /// holds a domain — a ``Defaults`` object, a pending flush, a tool — can
    /// use it (proposal 0009).
    let store: DomainStore
    /// What the watcher watches for this domain's journal folder; owned here
    /// (the watcher holds it weakly), made when the domain is journaled.
    let journalWatch = Lock<JournalWatch?>(nil)

    let state: Lock<DomainState>
    /// Bumped (under the state lock) each time `values` changes, so that a
    /// defaults object can trust the value a change carries when nothing
    /// was written after it, without taking the lock again.
    let valuesVersion = Atomic<UInt64>(0)
    /// The number of entries, kept with the version: an empty domain in the
    /// search list is skipped without a lock.
    let entryCount = Atomic<Int>(0)

    /// Publishes a change of `values` (call under the state lock, after it).
    ///
    /// Only the holder of the state lock writes the version, so it is read and
    /// stored, not added to: a plain store with release ordering where an
    /// atomic add is a locked instruction on every `set` (readers load it with
    /// acquiring ordering and see the entries written before it).
    @inline(__always)
    private func published(_ s: borrowing DomainState) -> UInt64 {
        entryCount.store(s.count, ordering: .releasing)
        let next = valuesVersion.load(ordering: .relaxed) &+ 1
        valuesVersion.store(next, ordering: .releasing)
        return next
    }
    /// Serializes this process's flushes of the domain (the file lock serializes processes).
    /// Counts this process's flushes (a lock over a value, not over `Void`:
    /// ThreadSanitizer misreads exclusive access to a zero-sized value).
    private let flushing = Lock<UInt64>(0)

    init(name: String, scope: PreferenceScope, file: DomainFile, store: DomainStore) {
        self.name = name
        self.scope = scope
        self.path = file.path
        self.file = file
        self.store = store
        self.state = Lock(DomainState())
        _ = reload(origin: .otherProcess, notify: false)
        // What a process that died before its flush left in its journal is
        // put in the file before this process reads the domain.
        _ = try? recoverOrphans()
    }

    // MARK: Reading

    /// The value of `key`, from memory.
    @inline(__always)
    public func value(forKey key: String) -> PropertyList? {
        state.withLock { $0.value(forKey: key) }
    }

    /// All entries, from memory (merged outside the lock).
    public var entries: [LiteralString: PropertyList] {
        let (base, pending) = state.withLock { ($0.base, $0.pending) }
        return pending.applied(to: base)
    }

    /// True when the domain has no entries.
    public var isEmpty: Bool { state.withLock { $0.count == 0 } }

    /// The last error reading or writing this domain, if the last attempt failed.
    public var lastError: StorageError? { state.withLock { $0.lastError } }

    // MARK: Writing

    /// Sets (or with nil removes) a key: memory at once, disk within the
    /// flush delay. O(1) whatever the domain's size.
    public func set(_ value: PropertyList?, forKey key: String) {
        var old: PropertyList? = nil
        var version: UInt64 = 0
        var journalFailed = false
        // The old value is kept only for the store's observers (a handler
        // added while this write runs may miss it, as one added after it).
        let delivering = store.hasHandlers
        defer { if journalFailed { reportJournalFailure() } }
        let hash = KeyHash.hash(key)
        let dependents: DependentList.Snapshot? = state.withLock { s in
            defer { s._checkInvariantsAfterChange() }
            switch s.set(value, forKey: key, hash: hash) {
            case .unchanged:
                // Reads see no change, so nobody is told; the file may differ
                // (another process's write not yet read), so it is journaled
                // and flushed as any change.
                if journal(&s, key, value) { journalFailed = true }
                scheduleFlush(&s)
                return nil
            case .changed(let before):
                if delivering { old = before }
            }
            if journal(&s, key, value) { journalFailed = true }
            scheduleFlush(&s)
            version = published(s)
            return s.dependents.snapshot
        }
        guard let dependents else { return }
        dependents.forEach { $0.domainChanged(self, key: key, hash: hash, value: value, version: version) }
        if delivering {
            store.deliver(DomainChange(domain: name, scope: scope, changes: [LiteralString(key): .init(old: old, new: value)], origin: .thisProcess, source: self))
        }
    }

    /// Sets several keys at once (nil values remove).
    public func set(_ values: [LiteralString: PropertyList?]) {
        var journalFailed = false
        defer { if journalFailed { reportJournalFailure() } }
        let changes: [LiteralString: DomainChange.Values] = state.withLock { s in
            defer { s._checkInvariantsAfterChange() }
            var changes: [LiteralString: DomainChange.Values] = [:]
            // One batch in the journal: a process that dies part-way through
            // leaves none of it to replay (a several-key set is all or nothing).
            var left = values.count
            for (literal, value) in values {
                let key = literal.string
                left -= 1
                let old = s.setInBatch(value, forKey: key)
                if journal(&s, key, value, continues: left > 0) { journalFailed = true }
                if old != value { changes[literal] = .init(old: old, new: value) }
            }
            _ = published(s)
            scheduleFlush(&s)
            return changes
        }
        if !changes.isEmpty {
            notify(DomainChange(domain: name, scope: scope, changes: changes, origin: .thisProcess, source: self))
        }
    }

    /// Replaces the whole domain (nil or empty removes its file).
    public func replaceAll(with entries: [LiteralString: PropertyList]?) {
        var journalFailed = false
        defer { if journalFailed { reportJournalFailure() } }
        let changes: [LiteralString: DomainChange.Values] = state.withLock { s in
            defer { s._checkInvariantsAfterChange() }
            let new = entries ?? [:]
            let changes = s.beginReplace(with: new)
            if journal(&s, "", .dictionary(new), operation: .replaceAll) { journalFailed = true }
            s.finishReplace(with: new)
            _ = published(s)
            scheduleFlush(&s)
            return changes
        }
        if !changes.isEmpty {
            notify(DomainChange(domain: name, scope: scope, changes: changes, origin: .thisProcess, source: self))
        }
    }

    /// Tells dependents, then the store's observers, of a change (no lock held).
    private func notify(_ change: DomainChange) {
        state.withLock { $0.dependents.snapshot }.forEach { $0.domainChanged(change) }
        store.deliver(change)
    }

    // MARK: Dependents

    /// Adds a dependent, told of every change until detached.
    func attach(_ dependent: any DomainDependent) {
        state.withLock { $0.dependents.attach(dependent) }
    }

    /// Removes a dependent.
    func detach(_ dependent: any DomainDependent) {
        state.withLock { $0.dependents.detach(dependent) }
    }

    /// How many dependents are attached.
    var dependentCount: Int { state.withLock { $0.dependents.all.count } }

    /// Appends the change just recorded (at `s.sequence`) to this process's
    /// journal, making the journal on the first write. A journal that cannot
    /// be made or grow turns journaling off for the domain: the write stays
    /// in memory and is flushed as before. Returns true when journaling has
    /// just been turned off (the caller reports it once, after the lock:
    /// ``reportJournalFailure()``); the common path carries no error value.
    @inline(__always)
    private func journal(_ s: inout DomainState, _ key: String, _ value: PropertyList?,
                         operation: JournalRecord.Operation? = nil, continues: Bool = false) -> Bool {
        guard file.journaled, !s.journalOff else { return false }
        if s.journal == nil {
            do { s.journal = try DomainJournal.create(forDomainFile: file.path) } catch {
                s.journalFailure = StorageError(domain: name, path: error.path, kind: .unwritable,
                    reason: "\(error.reason); writes to this domain are kept in memory until flushed, and are lost if the process dies first")
                return true
            }
        }
        let op = operation ?? (value == nil ? .remove : .set)
        if !s.journal!.append(sequence: s.sequence, operation: op, key: key, value: value, continues: continues) {
            s.journalFailure = StorageError(domain: name, path: s.journal!.path, kind: .unwritable,
                reason: "the journal cannot grow (disk full?); writes to this domain are kept in memory until flushed")
            return true
        }
        return false
    }

    /// Reports why journaling was turned off (once per domain).
    private func reportJournalFailure() {
        if let failure = state.withLock({ $0.journalFailure }) { store.report(failure) }
    }

    private func scheduleFlush(_ s: inout DomainState) {
        guard !s.flushScheduled else { return }
        s.flushScheduled = true
        store.scheduleFlush(self)
    }

    var hasPendingChanges: Bool { state.withLock { !$0.pending.isEmpty || $0.replaced != nil } }

    // MARK: Flushing

    /// Writes pending changes durably and reloads what other processes wrote.
    ///
    /// - Throws: ``StorageError`` when the file cannot be written or read;
    ///   the changes stay in memory and the old file is intact.
    public func synchronize() throws(StorageError) {
        try recoverOrphans()
        try flush()
        if let error = reload(origin: .otherProcess, notify: true) { throw error }
    }

    /// Writes this process's pending changes on top of the file's current
    /// contents, under the domain's lock. Other processes' keys are kept.
    func flush() throws(StorageError) {
        let (change, _) = try flushing.withLock { (count) throws(StorageError) in
            count += 1
            return try flushLocked(transform: nil)
        }
        if let change { notify(change) }
    }

    /// Replays the journals of processes that died before their flush (if
    /// any) into the domain file, under the domain's lock.
    func recoverOrphans() throws(StorageError) {
        guard file.journaled, JournalRecovery.mayHaveJournals(forDomainFile: path) else { return }
        let (change, _) = try flushing.withLock { (count) throws(StorageError) in
            count += 1
            return try flushLocked(transform: nil, recover: true)
        }
        if let change { notify(change) }
    }

    /// Closes this process's journal at a clean exit: removed when every
    /// change in it is in the domain file, kept for the next process otherwise.
    deinit {
        // Released with nothing pending (a pending flush holds the domain),
        // unless a flush failed: then the journal keeps the changes for the
        // next process, and is not removed.
        if hasPendingChanges { try? flush() }
        closeJournal()
    }

    func closeJournal() {
        state.withLock { s in
            guard let journal = s.journal else { return }
            journal.close(removing: s.pending.isEmpty && s.replaced == nil && s.lastError == nil)
            s.journal = nil
            s.journalFailure = StorageError(domain: name, path: path, kind: .unwritable, reason: "the process is exiting")
        }
    }

    /// Reads, changes and writes the domain as one step with respect to every
    /// other process and thread: under the domain's file lock, `body` gets
    /// the entries as they are on disk now (with this process's unwritten
    /// changes on top) and what it leaves is written durably before the lock
    /// is released. Use it for read-modify-write edits — appending to an
    /// array, adding to a dictionary, renaming a key — that must not lose a
    /// concurrent writer's edit. When `body` throws nothing is written and
    /// the error is rethrown; a ``StorageError`` is thrown when the file
    /// cannot be read or written.
    ///
    /// ```swift
    /// try domain.update { entries in
    ///     var log = entries["Log"]?.arrayValue ?? []
    ///     log.append("launched")
    ///     entries["Log"] = .array(log)
    /// }
    /// ```
    public func update<Result>(_ body: (inout [LiteralString: PropertyList]) throws -> Result) throws -> Result {
        var result: Result? = nil
        var thrown: (any Error)? = nil
        let (change, own) = try withoutActuallyEscaping(body) { body throws(StorageError) in
            try flushing.withLock { (count) throws(StorageError) in
                count += 1
                return try flushLocked { entries in
                    do { result = try body(&entries); return true } catch { thrown = error; return false }
                }
            }
        }
        if let change { notify(change) }
        if let own { notify(own) }
        if let thrown { throw thrown }
        return result!
    }

    /// Writes pending changes (and `transform`'s edit, when given) on top of
    /// the file. Returns what the file held that this process had not seen,
    /// and what `transform` changed (both delivered after the lock).
    private func flushLocked(transform: ((inout [LiteralString: PropertyList]) -> Bool)?, recover: Bool = false) throws(StorageError) -> (DomainChange?, DomainChange?) {
        let snapshot = state.withLock { $0.beginFlush(recovering: recover) }
        if snapshot.isEmpty && transform == nil && !recover { return (nil, nil) }
        if let refusal = file.refusal { throw record(refusal) }
        let lock: FileLock
        do {
            try FileIO.makeDirectories(FileIO.parentDirectory(of: file.lockPath))
            lock = try FileLock(path: file.lockPath)
        } catch {
            throw record(StorageError(domain: name, path: path, kind: .unwritable, reason: error.reason))
        }
        // Under the lock: the file's current entries (re-read if another process
        // wrote it), this process's changes on top, written whole.
        var edited: [LiteralString: DomainChange.Values] = [:]
        var aborted = false
        // The journals of processes that died before their flush: replayed
        // here, under the domain's lock, and removed once written.
        var orphans = JournalRecovery()
        defer { for problem in orphans.problems { store.report(problem) } }
        let outcome: Result<(written: [LiteralString: PropertyList], FileSignature?, PropertyListFormat, diskChanges: [LiteralString: DomainChange.Values]?), StorageError> = lock.withLock {
            var base: [LiteralString: PropertyList]
            var format = snapshot.format
            // What another process changed (keys this flush writes aside),
            // found here rather than under the state lock; nil when not re-read.
            var diskChanges: [LiteralString: DomainChange.Values]? = nil
            if file.journaled, JournalRecovery.mayHaveJournals(forDomainFile: path) {
                orphans = JournalRecovery.collect(forDomain: name, file: path, own: snapshot.journalPath)
            }
            // A recovery that finds no orphan writes nothing: this process's own pending
            // changes are the scheduled flush's (written here too, they cost a burst an extra
            // write each time the journal folder stirs).
            if recover, orphans.isEmpty {
                aborted = true
                return .success(([:], nil, format, nil))
            }
            let current = FileSignature.lookup(path)
            var unchanged: Bool
            switch current {
            case .success(let signature?): unchanged = signature == snapshot.signature
            case .success(nil): unchanged = snapshot.signature == nil
            case .failure: unchanged = false
            }
            if orphans.hasRecords { unchanged = false }
            if snapshot.replaced != nil, !unchanged {
                // Replacing or deleting the whole domain never destroys a file
                // this process could not read: an unreadable one (permissions,
                // a FIFO, an I/O error) fails the write and stays; a corrupt
                // one is moved aside first.
                switch file.read() {
                case .unreadable(let error): return .failure(error)
                case .corrupt(let error):
                    if let stop = moveCorruptAside(error, sparing: "replaced") { return .failure(stop) }
                case .absent, .loaded: break
                }
            }
            if unchanged, orphans.isEmpty, snapshot.replaced == nil, transform == nil, snapshot.pending.changesNothing(in: snapshot.base) {
                // The file is as this process last read it and every pending change sets what
                // it holds (sets of the value a key had): nothing to write.
                return .success((snapshot.base, snapshot.signature, format, nil))
            }
            if snapshot.replaced != nil || unchanged {
                // The copy is made here, on the flushing thread, not by the next write.
                base = snapshot.pending.applied(to: snapshot.base)
            } else {
                switch file.read() {
                case .absent: base = [:]
                case .unreadable(let error):
                    return .failure(error)
                case .corrupt(let error):
                    if let stop = moveCorruptAside(error, sparing: "overwritten") { return .failure(stop) }
                    base = [:]
                case .loaded(let entries, let fileFormat, _):
                    base = entries
                    format = fileFormat
                }
                orphans.apply(to: &base)
                (base, diskChanges) = DomainState.merge(file: base, seen: snapshot.base, pending: snapshot.pending)
            }
            if let transform {
                let before = base
                guard transform(&base) else { aborted = true; return .success((base, nil, format, nil)) }
                edited = DomainChange.diff(before, base)
            }
            do throws(StorageError) {
                let signature: FileSignature?
                if base.isEmpty && snapshot.replaced != nil {
                    try file.remove()
                    signature = nil
                } else {
                    signature = try file.write(base, format: format)
                }
                orphans.remove()
                return .success((base, signature, format, diskChanges))
            } catch {
                orphans.release()
                return .failure(error)
            }
        }
        switch outcome {
        case .failure(let error):
            throw record(error)
        case .success where aborted:
            return (nil, nil)
        case .success(let (written, signature, format, diskChanges)):
            // The state's transition (DomainState.finishFlush); reads see the new values once published.
            let (changes, edits) = state.withLock { s in
                let outcome = s.finishFlush(snapshot, written: written, signature: signature, format: format,
                                            diskChanges: diskChanges, edited: edited)
                if outcome.publish { _ = published(s) }
                return (outcome.otherProcess, outcome.edited)
            }
            // The entries replaced above are freed here, not under the state lock.
            withExtendedLifetime(snapshot) {}
            return (changes.isEmpty ? nil : DomainChange(domain: name, scope: scope, changes: changes, origin: .otherProcess, source: self),
                    edits.isEmpty ? nil : DomainChange(domain: name, scope: scope, changes: edits, origin: .thisProcess, source: self))
        }
    }

    /// Moves a corrupt file aside before a flush writes over it (under the
    /// domain's file lock), and reports it. Returns the error that stops the
    /// flush when it could not be moved: what cannot be read is never
    /// `sparing` ("overwritten", "replaced").
    private func moveCorruptAside(_ error: PropertyListError, sparing: String) -> StorageError? {
        let moved = file.moveAside()
        store.report(StorageError(domain: name, path: path, kind: .corrupt(movedTo: moved), reason: error.description))
        guard moved == nil else { return nil }
        return StorageError(domain: name, path: path, kind: .unwritable,
                            reason: "the corrupt file could not be moved aside, so it is not \(sparing)")
    }

    @discardableResult
    private func record(_ error: StorageError) -> StorageError {
        state.withLock { $0.lastError = error }
        store.report(error)
        return error
    }

    // MARK: Reloading

    /// Takes other processes' writes now, as the file watcher would a moment
    /// later: re-reads the file if it changed (one `stat` when it did not)
    /// and notifies what changed. For a caller about to compare memory with
    /// news from elsewhere (a sync download) that must not take a write
    /// another process already made for news.
    /// Returns true when the entries changed.
    @discardableResult
    package func refresh() -> Bool {
        reloading(origin: .otherProcess, notify: true).changed
    }

    /// Re-reads the file when it changed since this process last saw it, and
    /// reports what changed. Returns the error when it cannot be read.
    @discardableResult
    func reload(origin: DomainChange.Origin, notify: Bool) -> StorageError? {
        reloading(origin: origin, notify: notify).error
    }

    /// ``reload(origin:notify:)``, also saying whether the entries changed
    /// (known only when it notifies).
    private func reloading(origin: DomainChange.Origin, notify: Bool) -> (changed: Bool, error: StorageError?) {
        // Serialized with flushes: a reload the watcher starts for this
        // process's own write waits for the flush to record the file's new
        // signature, then finds nothing to do.
        let (changes, reported) = flushing.withLock { _ in reloadLocked(reporting: notify) }
        if let reported { store.report(reported) }
        if notify, !changes.isEmpty {
            self.notify(DomainChange(domain: name, scope: scope, changes: changes, origin: origin, source: self))
        }
        return (!changes.isEmpty, reported)
    }

    /// Reads the file if it changed and makes it the entries; under the
    /// flushing lock. What changed is worked out only when it is `reporting`
    /// (not for the first load).
    private func reloadLocked(reporting: Bool) -> ([LiteralString: DomainChange.Values], StorageError?) {
        let (known, oldBase) = state.withLock { ($0.signature, $0.base) }
        switch FileSignature.lookup(path) {
        case .success(let current?) where current == known: return ([:], nil)
        case .success(nil) where known == nil: return ([:], nil)
        default: break
        }
        var reported: StorageError? = nil
        var disk: [LiteralString: PropertyList] = [:]
        var format: PropertyListFormat? = nil
        var signature: FileSignature? = nil
        switch file.read() {
        case .absent: break
        case .unreadable(let error):
            reported = error
        case .corrupt(let error):
            // Never overwrite or delete what cannot be read: move it aside, under the lock.
            let moved: String? = (try? FileLock(path: file.lockPath))?.withLock {
                if case .corrupt = file.read() { return file.moveAside() }
                return nil
            }
            reported = StorageError(domain: name, path: path, kind: .corrupt(movedTo: moved), reason: error.description)
        case .loaded(let entries, let fileFormat, let sig):
            disk = entries
            format = fileFormat
            signature = sig
        }
        // What changed on disk, found outside the state lock (a domain can be
        // large). Only flushes and reloads, which hold the flushing lock, and
        // replacements of the whole domain change the entries, so they are
        // still `oldBase` below unless the domain was replaced.
        let diskChanges = reporting ? DomainChange.diff(oldBase, disk) : [:]
        let changes = state.withLock { s in
            let outcome = s.finishReload(disk: disk, signature: signature, format: format, error: reported,
                                         diskChanges: diskChanges, reporting: reporting)
            if outcome.publish { _ = published(s) }
            return outcome.changes
        }
        // The entries replaced above are freed here, not under the state lock.
        withExtendedLifetime(oldBase) {}
        return (changes, reported)
    }
}
