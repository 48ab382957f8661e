#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import PlatformIO
import Synchronization

/// Something whose files the watcher watches: a persistent domain (its
/// file) or a managed domain (its policy files).
protocol WatchTarget: AnyObject, Sendable {
    /// The files to watch (their folders are watched).
    var watchedPaths: [String] { get }
    /// One of the files may have changed: re-read it (cheap when it did not).
    func watchedFileChanged()
}

/// Notices other processes' writes to loaded domains and reloads them.
///
/// On Linux it watches each file's folder with inotify and blocks until an
/// event arrives: an idle process is never woken. A folder that does not
/// exist yet is waited for by watching its nearest existing ancestor; a
/// folder that is deleted or replaced (`IN_IGNORED`, `IN_MOVE_SELF`) goes
/// back to waiting, and its files are re-read. When the kernel's event queue
/// overflows (`IN_Q_OVERFLOW`) every watched file is re-read, since any
/// event may have been lost. Only where inotify cannot be used at all are
/// files polled, every ``fallbackPollMilliseconds``.
final class FileWatcher: Sendable {
    /// How often files are polled when inotify cannot watch them.
    static let fallbackPollMilliseconds: Int32 = 250

    /// The events of every watch: one mask for all, because a second
    /// `inotify_add_watch` of the same folder replaces the first's mask.
    static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF)

    struct Watches {
        /// inotify watch descriptor → folder.
        var folders: [Int32: String] = [:]
        /// folder → watch descriptor.
        var descriptors: [String: Int32] = [:]
        /// folder → file name → targets with that file.
        var files: [String: [String: [WeakTarget]]] = [:]
        /// Folders that do not exist yet → (file name, target); their nearest
        /// existing ancestor is watched, and any event there retries them.
        var pending: [String: [(String, WeakTarget)]] = [:]
        /// Targets polled because inotify is unavailable.
        var polled: [WeakTarget] = []
    }

    /// A watched target, held weakly: the watcher never keeps a domain (and
    /// so its store) alive. A released target's entries are skipped and pruned.
    struct WeakTarget: @unchecked Sendable {
        weak var target: (any WatchTarget)?
        init(_ target: any WatchTarget) { self.target = target }
    }

    private let fd: Int32
    /// A pipe that wakes the thread when the set of polled targets changes
    /// (read end, write end).
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    let watches = Lock(Watches())
    private let queue = DispatchQueue(label: "OpenDefaults.watcher")
    private let started = Atomic<Bool>(false)
    /// Set when the owner is gone: the thread ends and closes the descriptors.
    private let stopped = Atomic<Bool>(false)

    private struct WeakOwner: @unchecked Sendable {
        weak var object: AnyObject?
    }

    /// The store whose domains are the targets. The thread holds it strongly
    /// only while it delivers one batch of changes (so it is not released in
    /// the middle of one); between batches the store may go, which stops the thread.
    private let owner: Lock<WeakOwner>

    init(owner: AnyObject & Sendable) {
        self.owner = Lock(WeakOwner(object: owner))
        #if os(Linux)
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        wakeFD = ends[0]
        wakeWriteFD = ends[1]
        #else
        fd = -1
        wakeFD = -1
        wakeWriteFD = -1
        #endif
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
        #if os(Linux)
        for descriptor in [fd, wakeFD, wakeWriteFD] where descriptor >= 0 { close(descriptor) }
        #endif
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
        #if os(Linux)
        guard fd >= 0 else { return .unavailable }
        if isWatched(folder, &w) { return .watched }
        // Not there yet: wait for it from the nearest ancestor that is.
        var ancestor = FileIO.parentDirectory(of: folder)
        while !isWatched(ancestor, &w) {
            let next = FileIO.parentDirectory(of: ancestor)
            if next == ancestor || ancestor == "." { return .unavailable }
            ancestor = next
        }
        return .waiting
        #else
        return .unavailable
        #endif
    }

    /// Whether `folder` is watched, adding the watch when it can be.
    private func isWatched(_ folder: String, _ w: inout Watches) -> Bool {
        #if os(Linux)
        if w.descriptors[folder] != nil { return true }
        let wd = inotify_add_watch(fd, folder, Self.mask)
        guard wd >= 0 else { return false }
        w.folders[wd] = folder
        w.descriptors[folder] = wd
        return true
        #else
        return false
        #endif
    }

    private func wake() {
        guard wakeWriteFD >= 0 else { return }
        var one: UInt8 = 1
        _ = Glibc.write(wakeWriteFD, &one, 1)
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !stopped.load(ordering: .acquiring) {
            let polled = watches.withLock { w in
                w.polled.removeAll { $0.target == nil }
                return w.polled.compactMap(\.target)
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            let timeout: Int32 = polled.isEmpty ? -1 : Self.fallbackPollMilliseconds
            if fd < 0 && wakeFD < 0 {
                usleep(UInt32(Self.fallbackPollMilliseconds) * 1000)
            } else {
                _ = poll(&fds, 2, timeout)
            }
            if fds[1].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                _ = drained.withUnsafeMutableBytes { Glibc.read(wakeFD, $0.baseAddress, $0.count) }
            }
            var touched: [any WatchTarget] = []
            if fds[0].revents != 0 {
                while true {
                    let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                    if n <= 0 { break }
                    touched += targets(forEvents: buffer, count: n)
                }
            }
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

    /// The targets named by a batch of inotify events, after updating the
    /// watches for folders that appeared, disappeared or were replaced.
    func targets(forEvents buffer: [UInt8], count n: Int) -> [any WatchTarget] {
        var out: [any WatchTarget] = []
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset + 16 <= n {
                let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = UnsafeRawBufferPointer(rebasing: raw[(offset + 16)..<min(n, offset + 16 + length)])
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += 16 + length
                out += watches.withLock { w in handle(wd: wd, mask: mask, name: name, &w) }
            }
        }
        return out
    }

    /// One event. Returns the targets to re-read.
    private func handle(wd: Int32, mask: UInt32, name: String, _ w: inout Watches) -> [any WatchTarget] {
        #if os(Linux)
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            // Events were lost: re-read everything, and retry waiting folders.
            var all = w.files.values.flatMap { $0.values.flatMap { $0.compactMap(\.target) } }
            all += retryPending(&w)
            return all
        }
        guard let folder = w.folders[wd] else { return [] }
        if mask & UInt32(IN_MOVE_SELF) != 0 {
            // The folder was renamed away: what was watched is elsewhere now.
            inotify_rm_watch(fd, wd)  // IN_IGNORED follows
            return []
        }
        if mask & UInt32(IN_IGNORED) != 0 {
            // The folder is gone (deleted, or replaced by a rename): wait for it again.
            w.folders[wd] = nil
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
        var out = live(&w, folder, name)
        if mask & UInt32(IN_CLOSE_WRITE) != 0, name.hasSuffix(".journal") {
            out += live(&w, folder, JournalWatch.pattern)
        }
        if !w.pending.isEmpty, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { out += retryPending(&w) }
        return out
        #else
        return []
        #endif
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
