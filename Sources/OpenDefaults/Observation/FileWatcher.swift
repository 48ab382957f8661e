import Dispatch
import PlatformIO
import SharedTables
import Synchronization

/// Notices other processes' writes to loaded domains and reloads them.
///
/// It watches each file's folder through ``FolderEvents`` (inotify on
/// Linux) and blocks until an event arrives: an idle process is never woken. A folder that does not
/// exist yet is waited for by watching its nearest existing ancestor; a
/// folder that is deleted or replaced (its watch ended, or it moved away) goes
/// back to waiting, and its files are re-read. When the kernel's event queue
/// overflows every watched file is re-read, since any event may have been
/// lost. Only where folders cannot be watched at all are files polled,
/// every ``fallbackPollMilliseconds``.
final class FileWatcher: Sendable {
    /// How often files are polled when inotify cannot watch them.
    static let fallbackPollMilliseconds: Int32 = 250

    struct Watches {
        /// watch number → folder.
        var folders: [Int32: String] = [:]
        /// folder → watch descriptor.
        var descriptors: [String: Int32] = [:]
        /// folder → file name → targets with that file.
        var files: [String: [String: [WeakTarget]]] = [:]
        /// Folders that do not exist yet → (file name, target); their nearest
        /// existing ancestor is watched, and any event there retries them.
        var pending: [String: [(String, WeakTarget)]] = [:]
        /// Targets polled because their folders cannot be watched.
        var polled: [WeakTarget] = []
    }

    /// A watched target, held weakly: the watcher never keeps a domain (and
    /// so its store) alive. A released target's entries are skipped and pruned.
    struct WeakTarget: @unchecked Sendable {
        weak var target: (any WatchTarget)?
        init(_ target: any WatchTarget) { self.target = target }
    }

    /// The kernel's events, and the wake-up of the thread when the set of
    /// polled targets changes or the watcher stops.
    private let events = FolderEvents()
    let watches = Lock(Watches())
    private let queue = DispatchQueue(label: "OpenDefaults.watcher")
    private let started = Atomic<Bool>(false)
    /// Set when the owner is gone: the thread ends and closes the descriptors.
    private let stopped = Atomic<Bool>(false)
    /// How many times the kernel's queue overflowed (events lost, everything re-read): for tests
    /// that must prove an overflow happened before they check what follows it.
    let overflows = Atomic<Int>(0)

    private struct WeakOwner: @unchecked Sendable {
        weak var object: AnyObject?
    }

    /// The store whose domains are the targets. The thread holds it strongly
    /// only while it delivers one batch of changes (so it is not released in
    /// the middle of one); between batches the store may go, which stops the thread.
    private let owner: Lock<WeakOwner>

    init(owner: any AnyObject & Sendable) {
        self.owner = Lock(WeakOwner(object: owner))
    }

    /// Starts the watching thread; called on the first ``watch(_:)``, so a
    /// process that only peeks at a domain never starts a thread.
    func start() {
        guard !stopped.load(ordering: .acquiring), !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            run()
            closeDescriptors()
        }
    }

    /// Ends watching: the owner is being released. The thread (if it was
    /// started) wakes, ends and closes the descriptors; else they close now.
    /// Safe to call on the watcher's own thread (the owner's last reference
    /// may be dropped by a change it delivers).
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if started.exchange(true, ordering: .acquiringAndReleasing) {
            wake()
        } else {
            closeDescriptors()
        }
    }

    private func closeDescriptors() {
        events.close()
        watches.withLock { $0 = Watches() }
    }

    /// Watches the target's files from now on.
    func watch(_ target: any WatchTarget) {
        start()
        var polledNow = false
        watches.withLock { w in
            for path in target.watchedPaths {
                let file = FileIO.resolvingSymbolicLinks(path)
                let folder = FileIO.parentDirectory(of: file)
                if place(target, file: FileIO.lastComponent(of: file), in: folder, &w) == .unavailable { polledNow = true }
            }
        }
        if polledNow { wake() }
    }

    private enum WatchResult { case watched, waiting, unavailable }

    /// Watches `folder`; when it does not exist, watches its nearest existing
    /// ancestor instead (`waiting`).
    private func addWatch(_ folder: String, _ w: inout Watches) -> WatchResult {
        guard events.isAvailable else { return .unavailable }
        if isWatched(folder, &w) { return .watched }
        // Not there yet: wait for it from the nearest ancestor that is.
        var ancestor = FileIO.parentDirectory(of: folder)
        while !isWatched(ancestor, &w) {
            let next = FileIO.parentDirectory(of: ancestor)
            if next == ancestor || ancestor == "." { return .unavailable }
            ancestor = next
        }
        return .waiting
    }

    /// Whether `folder` is watched, adding the watch when it can be.
    private func isWatched(_ folder: String, _ w: inout Watches) -> Bool {
        if w.descriptors[folder] != nil { return true }
        guard let wd = events.addWatch(folder) else { return false }
        w.folders[wd] = folder
        w.descriptors[folder] = wd
        return true
    }

    private func wake() { events.wake() }

    private func run() {
        while !stopped.load(ordering: .acquiring) {
            let polled = watches.withLock { w in
                w.polled.removeAll { $0.target == nil }
                return w.polled.compactMap(\.target)
            }
            let arrived = events.next(timeoutMilliseconds: polled.isEmpty ? nil : Self.fallbackPollMilliseconds)
            var touched = targets(for: arrived)
            touched += polled
            // The owner, kept alive for this batch; gone means stop.
            guard !stopped.load(ordering: .acquiring), let keptAlive = owner.withLock({ $0.object }) else { return }
            withExtendedLifetime(keptAlive) {
                var seen = Set<ObjectIdentifier>()
                for target in touched where seen.insert(ObjectIdentifier(target)).inserted {
                    target.watchedFileChanged()
                }
            }
        }
    }

    /// The targets named by a batch of events, after updating the watches
    /// for folders that appeared, disappeared or were replaced.
    func targets(for batch: [FolderEvents.Event]) -> [any WatchTarget] {
        var out: [any WatchTarget] = []
        for event in batch {
            out += watches.withLock { w in handle(event, &w) }
        }
        return out
    }

    /// One event. Returns the targets to re-read.
    private func handle(_ event: FolderEvents.Event, _ w: inout Watches) -> [any WatchTarget] {
        if event.flags.contains(.overflow) {
            overflows.add(1, ordering: .relaxed)
            // Events were lost: re-read everything, and retry waiting folders.
            var all = w.files.values.flatMap { $0.values.flatMap { $0.compactMap(\.target) } }
            all += retryPending(&w)
            return all
        }
        guard let folder = w.folders[event.watch] else { return [] }
        if event.flags.contains(.folderMoved) {
            // The folder was renamed away: what was watched is elsewhere now.
            events.removeWatch(event.watch)  // its end follows
            return []
        }
        if event.flags.contains(.watchEnded) {
            // The folder is gone (deleted, or replaced by a rename): wait for it again.
            w.folders[event.watch] = nil
            w.descriptors[folder] = nil
            let orphans = w.files.removeValue(forKey: folder) ?? [:]
            var lost: [any WatchTarget] = []
            for (file, targets) in orphans {
                for t in targets.compactMap(\.target) {
                    lost.append(t)
                    _ = place(t, file: file, in: folder, &w)
                }
            }
            return lost + retryPending(&w)
        }
        var out = live(&w, folder, event.name)
        if event.flags.contains(.closedAfterWriting), event.name.hasSuffix(".journal") {
            out += live(&w, folder, JournalWatch.pattern)
        }
        if !w.pending.isEmpty, !event.flags.isDisjoint(with: [.created, .movedIn]) { out += retryPending(&w) }
        return out
    }

    /// Watches waiting folders that exist now; returns their targets (their
    /// files may have been written before the watch began).
    private func retryPending(_ w: inout Watches) -> [any WatchTarget] {
        var found: [any WatchTarget] = []
        for (folder, entries) in w.pending {
            w.pending[folder] = nil
            for (file, weak) in entries {
                guard let target = weak.target else { continue }
                if place(target, file: file, in: folder, &w) == .watched { found.append(target) }
            }
        }
        return found
    }

    /// Watches `file` of `target` in `folder`, or waits for the folder, or
    /// polls the target; returns which.
    private func place(_ target: any WatchTarget, file: String, in folder: String, _ w: inout Watches) -> WatchResult {
        let result = addWatch(folder, &w)
        switch result {
        case .watched: w.files[folder, default: [:]][file, default: []].append(WeakTarget(target))
        case .waiting: w.pending[folder, default: []].append((file, WeakTarget(target)))
        case .unavailable: if !w.polled.contains(where: { $0.target === target }) { w.polled.append(WeakTarget(target)) }
        }
        return result
    }

    /// The live targets of `name` in `folder`; released ones are pruned.
    private func live(_ w: inout Watches, _ folder: String, _ name: String) -> [any WatchTarget] {
        guard let entries = w.files[folder]?[name] else { return [] }
        let alive = entries.compactMap(\.target)
        if alive.count != entries.count {
            w.files[folder]![name] = alive.isEmpty ? nil : alive.map(WeakTarget.init)
        }
        return alive
    }
}

extension PersistentDomain: WatchTarget {
    var watchedPaths: [String] { [path] }
    func watchedFileChanged() { reload(origin: .otherProcess, notify: true) }
}

extension ManagedDomain: WatchTarget {
    var watchedPaths: [String] { paths }
    func watchedFileChanged() { reload() }
}
