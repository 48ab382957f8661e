@_spi(Engine) package import OpenDefaults
import PlatformIO
import SharedTables
package import PropertyList
import Synchronization

/// One store's local copy for one account: what reads answer from, what
/// survives restarts and what waits to be uploaded. Two OpenDefaults
/// persistent domains (journaled, durable, shared coherently by processes):
///
/// - `<folder>/<store>.plist`: the values, key → value;
/// - `<folder>/<store>+sync.plist`: the sync state: `cursor` (the server
///   revision every change up to has been applied), `initialSynced`,
///   `rev:<key>` (the server revision of the key's value) and `dirty:<key>`
///   (a local write not yet acknowledged: its sequence number). A store
///   identifier never holds `+`, so no store's values file can be another
///   store's state file (earlier versions wrote `<store>.sync.plist`, which is
///   store `<store>.sync`'s values file; its state is copied from there once,
///   see ``adoptLegacyState(folder:storeIdentifier:domainStore:into:)``).
///
/// Every method is atomic under one lock, so the upload, the download and
/// the API's writes can run at once.
package final class LocalReplica: Sendable {
    package let values: PersistentDomain
    let meta: PersistentDomain

    struct Book {
        /// Each present key's size (binary property list bytes).
        var sizes: [LiteralString: Int] = [:]
        var total = 0
        var sequence: Int64 = 0
        /// The pending writes (key → sequence), as `dirty:` entries hold them on disk.
        var pending: [LiteralString: Int64] = [:]

        /// Takes every key's size from `values` (after another process wrote).
        mutating func measure(_ values: PersistentDomain) {
            sizes = [:]
            total = 0
            for (key, value) in values.entries {
                let size = UbiquityLimits.size(of: value)
                sizes[key] = size
                total += size
            }
        }

        mutating func clearPending(_ key: String, in meta: PersistentDomain) {
            if pending.removeValue(forKey: key) != nil { meta.set(nil, forKey: LocalReplica.dirtyPrefix + key) }
        }
    }
    let book: Lock<Book>

    package init(folder: String, storeIdentifier: String, domainStore: DomainStore) {
        values = domainStore.domain(atPath: folder + "/" + storeIdentifier + ".plist")
        meta = domainStore.domain(atPath: Self.statePath(folder: folder, storeIdentifier: storeIdentifier))
        Self.adoptLegacyState(folder: folder, storeIdentifier: storeIdentifier, domainStore: domainStore, into: meta)
        var b = Book()
        b.measure(values)
        for (key, value) in meta.entries where key.string.utf8.starts(with: Self.dirtyPrefix.utf8) {
            if case .integer(let s) = value, let seq = s.int64Value {
                b.sequence = max(b.sequence, seq)
                b.pending[String(key.string.dropFirst(Self.dirtyPrefix.count))] = seq
            }
        }
        book = Lock(b)
        _checkInvariantsAfterChange()
    }

    /// The sync state's file: `+` is not allowed in store identifiers, so the
    /// name is no other store's (values `<store>.plist`, state `<store>+sync.plist`).
    package static func statePath(folder: String, storeIdentifier: String) -> String {
        folder + "/" + storeIdentifier + "+sync.plist"
    }

    /// Earlier versions kept the state in `<store>.sync.plist`. When the new
    /// state file is still empty, the state's own entries (`cursor`,
    /// `initialSynced`, `rev:…`, `dirty:…`) are copied from there; the old
    /// file is left as it is (it may also be store `<store>.sync`'s values).
    static func adoptLegacyState(folder: String, storeIdentifier: String, domainStore: DomainStore, into meta: PersistentDomain) {
        guard meta.isEmpty else { return }
        let legacyPath = folder + "/" + storeIdentifier + ".sync.plist"
        guard FileStatus.exists(legacyPath) else { return }
        let legacy = domainStore.domain(atPath: legacyPath)
        var state: [LiteralString: PropertyList?] = [:]
        for (key, value) in legacy.entries {
            let k = key.string
            if k == "cursor" || k == "initialSynced" || k.utf8.starts(with: revPrefix.utf8) || k.utf8.starts(with: dirtyPrefix.utf8) {
                state[key] = value
            }
        }
        guard !state.isEmpty else { return }
        meta.set(state)
        try? meta.synchronize()
    }

    static let revPrefix = "rev:"
    static let dirtyPrefix = "dirty:"

    // MARK: Reading

    @inline(__always)
    package func value(forKey key: String) -> PropertyList? { values.value(forKey: key) }

    package var entries: [LiteralString: PropertyList] { values.entries }

    package var cursor: Int64 {
        if case .integer(let c)? = meta.value(forKey: "cursor"), let v = c.int64Value { return v }
        return 0
    }

    package var initialSynced: Bool { meta.value(forKey: "initialSynced") == .boolean(true) }

    func revision(of key: String) -> Int64 {
        if case .integer(let r)? = meta.value(forKey: Self.revPrefix + key), let v = r.int64Value { return v }
        return 0
    }


    // MARK: Local writes

    /// Writes `value` (nil removes) locally and marks the key for upload.
    /// - Throws: ``UbiquityError`` for a limit; nothing changes then.
    package func write(_ value: PropertyList?, forKey key: String) throws(UbiquityError) {
        try UbiquityLimits.check(key: key)
        let size = value.map(UbiquityLimits.size(of:))
        if let size, size > UbiquityLimits.maximumValueBytes { throw .valueTooLarge(key: key, bytes: size) }
        try book.withLock { (b: inout Book) throws(UbiquityError) in
            let old = b.sizes[key]
            if let size {
                if old == nil, b.sizes.count + 1 > UbiquityLimits.maximumKeys {
                    throw .tooManyKeys(key: key, count: b.sizes.count + 1)
                }
                let total = b.total - (old ?? 0) + size
                if total > UbiquityLimits.maximumTotalBytes { throw .storeTooLarge(key: key, bytes: total) }
                b.sizes[key] = size
                b.total = total
            } else if let old {
                b.sizes[key] = nil
                b.total -= old
            }
            b.sequence += 1
            values.set(value, forKey: key)
            b.pending[key] = b.sequence
            meta.set(.integer(.init(b.sequence)), forKey: Self.dirtyPrefix + key)
        }
    }

    /// A local write waiting for upload.
    package struct Pending: Sendable, Hashable {
        package var key: String
        package var base: Int64
        package var value: PropertyList?
        package var sequence: Int64
    }

    /// The local writes not yet acknowledged, oldest first.
    package func pending() -> [Pending] {
        book.withLock { b in
            var out: [Pending] = []
            out.reserveCapacity(b.pending.count)
            for (key, seq) in b.pending {
                out.append(Pending(key: key.string, base: revision(of: key.string), value: values.value(forKey: key.string), sequence: seq))
            }
            return out.sorted { $0.sequence < $1.sequence }
        }
    }

    // MARK: What the server says

    /// Takes the server's entry for a key: its value and revision; clears
    /// the key's pending write when it is `sequence` (or any, when nil).
    /// Returns true when the local value changed.
    private func take(_ b: inout Book, key: String, revision: Int64, value: PropertyList?, clearing sequence: Int64?) -> Bool {
        let old = values.value(forKey: key)
        let changed = old != value
        if changed {
            if let o = b.sizes[key] { b.total -= o }
            if let value {
                let s = UbiquityLimits.size(of: value)
                b.sizes[key] = s
                b.total += s
            } else {
                b.sizes[key] = nil
            }
            values.set(value, forKey: key)
        }
        meta.set(.integer(.init(revision)), forKey: Self.revPrefix + key)
        if let d = b.pending[key], sequence == nil || d == sequence { b.clearPending(key, in: meta) }
        return changed
    }

    /// Applies a commit's results for the writes `sent`. Returns the keys the
    /// server's values replaced: lost conflicts, and refused writes.
    package func apply(commit response: UbiquityCommitResponse, sent: [Pending]) -> (conflicts: [String], refused: [String]) {
        let bySequence = Dictionary(sent.map { (LiteralString($0.key), $0.sequence) }, uniquingKeysWith: { a, _ in a })
        var conflicts: [String] = []
        var refused: [String] = []
        book.withLock { b in
            for result in response.results {
                let e = result.entry
                guard let seq = bySequence[e.key] else { continue }
                let known = revision(of: e.key)
                switch result.status {
                case .applied:
                    // A download may already have brought a later revision.
                    if e.revision > known { meta.set(.integer(.init(e.revision)), forKey: Self.revPrefix + e.key) }
                    if b.pending[e.key] == seq { b.clearPending(e.key, in: meta) }
                case .conflict, .refused:
                    let serverValue = e.value.flatMap { UbiquityWireValue.decode($0)?.value }
                    if b.pending[e.key] != seq {
                        // Written again since: that write goes up next, on the server's revision.
                        if e.revision > known { meta.set(.integer(.init(e.revision)), forKey: Self.revPrefix + e.key) }
                        continue
                    }
                    if result.status == .conflict, e.revision <= known, values.value(forKey: e.key) == serverValue {
                        // A download already took this value (and said so).
                        b.clearPending(e.key, in: meta)
                        continue
                    }
                    let changed = take(&b, key: e.key, revision: max(e.revision, known), value: serverValue, clearing: seq)
                    if result.status == .refused { refused.append(e.key) } else if changed { conflicts.append(e.key) }
                }
            }
        }
        return (conflicts.sorted(), refused.sorted())
    }

    /// Checks a download against the protocol and the store's limits, as
    /// the server checks a commit: every key valid, every value a binary
    /// property list within the value limit that does not expand beyond
    /// ``UbiquityLimits/maximumExpansion``, and the store after the download
    /// within its keys and bytes. Returns each entry's decoded value.
    func checked(_ response: UbiquityChangesResponse, sizes: [LiteralString: Int]) throws(UbiquityError) -> [(value: PropertyList?, size: Int)] {
        guard response.entries.count <= 4 * UbiquityLimits.maximumKeys else {
            throw .badServerAnswer("it lists \(response.entries.count) keys; a store holds at most \(UbiquityLimits.maximumKeys)")
        }
        var projected = sizes
        var decoded: [(value: PropertyList?, size: Int)] = []
        decoded.reserveCapacity(response.entries.count)
        var listed = Set<LiteralString>()
        for e in response.entries {
            do { try UbiquityLimits.check(key: e.key) } catch { throw .badServerAnswer("\(error)") }
            listed.insert(e.key)
            guard let text = e.value else {
                decoded.append((nil, 0))
                projected[e.key] = nil
                continue
            }
            switch UbiquityWireValue.decodeChecked(text) {
            case .failure(let refusal): throw .badServerAnswer("the value of \"\(e.key)\": \(refusal)")
            case .success(let value):
                let size = UbiquityLimits.size(of: value)
                guard size <= UbiquityLimits.maximumValueBytes else {
                    throw .badServerAnswer("the value of \"\(e.key)\" is \(size) bytes; at most \(UbiquityLimits.maximumValueBytes) are allowed")
                }
                decoded.append((value, size))
                projected[e.key] = size
            }
        }
        if response.complete { projected = projected.filter { listed.contains($0.key) } }
        guard projected.count <= UbiquityLimits.maximumKeys else {
            throw .badServerAnswer("the store would hold \(projected.count) keys; at most \(UbiquityLimits.maximumKeys) are allowed")
        }
        let total = projected.values.reduce(0, +)
        guard total <= UbiquityLimits.maximumTotalBytes else {
            throw .badServerAnswer("the store's values would be \(total) bytes; at most \(UbiquityLimits.maximumTotalBytes) are allowed")
        }
        return decoded
    }

    /// Applies a download. Returns the keys whose local values changed.
    /// - Throws: ``UbiquityError/badServerAnswer(_:)`` when the answer breaks
    ///   the protocol or the limits; nothing is applied then.
    package func apply(changes response: UbiquityChangesResponse, initial: Bool) throws(UbiquityError) -> [String] {
        // Another process on this machine (`ubiquity set`) may have written the
        // value this download brings and uploaded it; the file watcher may not
        // have told this process yet. Compared with a stale memory, its own
        // machine's write would be reported as a server's change.
        let otherProcessWrote = values.refresh()
        meta.refresh()
        var changed: [String] = []
        try book.withLock { (b: inout Book) throws(UbiquityError) in
            if otherProcessWrote { b.measure(values) }
            let decoded = try checked(response, sizes: b.sizes)
            var listed = Set<LiteralString>()
            for (index, e) in response.entries.enumerated() {
                listed.insert(e.key)
                let known = revision(of: e.key)
                if e.revision <= known && !initial { continue }
                let serverValue = decoded[index].value
                if b.pending[e.key] != nil {
                    if serverValue == nil {
                        // The server does not hold the key: the local write goes up on the removal's revision.
                        meta.set(.integer(.init(e.revision)), forKey: Self.revPrefix + e.key)
                        continue
                    }
                    if values.value(forKey: e.key) == serverValue {
                        // Our own write, acknowledged by the download before the commit's answer.
                        meta.set(.integer(.init(e.revision)), forKey: Self.revPrefix + e.key)
                        b.clearPending(e.key, in: meta)
                        continue
                    }
                }
                if take(&b, key: e.key, revision: e.revision, value: serverValue, clearing: nil) { changed.append(e.key) }
            }
            if response.complete {
                // Keys the server no longer lists are gone, unless written here since.
                for literal in Array(b.sizes.keys) where !listed.contains(literal) && b.pending[literal] == nil {
                    let key = literal.string
                    if take(&b, key: key, revision: revision(of: key), value: nil, clearing: nil) { changed.append(key) }
                }
            }
            if response.revision > cursor { meta.set(.integer(.init(response.revision)), forKey: "cursor") }
            if initial { meta.set(.boolean(true), forKey: "initialSynced") }
        }
        return changed.sorted()
    }

    /// Every key with a value.
    package var keys: [String] { book.withLock { $0.sizes.keys.map(\.string) } }

    /// Writes both files durably.
    package func synchronize() throws(UbiquityError) {
        do {
            try values.synchronize()
            try meta.synchronize()
        } catch { throw .storage("\(error)") }
    }
}
