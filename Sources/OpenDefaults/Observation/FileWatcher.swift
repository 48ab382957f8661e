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

/// Notices other processes' writes to loaded domains and reloads them.
///
/// On Linux it watches each domain's directory with inotify; where a
/// directory cannot be watched (it does not exist yet, or inotify is
/// unavailable) it polls the file's signature every ``pollInterval``.
/// Events arrive within a few milliseconds of the writer's rename.
final class FileWatcher: Sendable {
    /// How often unwatchable files are polled (and missing directories retried).
    static let pollIntervalMilliseconds: Int32 = 25

    private struct Watches {
        /// inotify watch descriptor → directory.
        var directories: [Int32: String] = [:]
        /// directory → file name → domains with that file.
        var files: [String: [String: [PersistentDomain]]] = [:]
        /// Domains whose directory is not watched: polled.
        var polled: [PersistentDomain] = []
    }

    private let fd: Int32
    private let watches = Lock(Watches())
    private let queue = DispatchQueue(label: "OpenDefaults.watcher")

    init() {
        #if os(Linux)
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        #else
        fd = -1
        #endif
    }

    private let started = Atomic<Bool>(false)

    /// Starts the watching thread; called on the first ``watch(_:)``, so a
    /// process that only peeks at a domain never starts a thread.
    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in run() }
    }


    func watch(_ domain: PersistentDomain) {
        start()
        let target = FileIO.resolvingSymbolicLinks(domain.path)
        let directory = FileIO.parentDirectory(of: target)
        let name = FileIO.lastComponent(of: target)
        watches.withLock { w in
            if !addWatch(directory, &w) {
                w.polled.append(domain)
                return
            }
            w.files[directory, default: [:]][name, default: []].append(domain)
        }
    }

    /// Adds an inotify watch on `directory`; false when it cannot be watched.
    private func addWatch(_ directory: String, _ w: inout Watches) -> Bool {
        #if os(Linux)
        guard fd >= 0 else { return false }
        if w.files[directory] != nil { return true }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB)
        let wd = inotify_add_watch(fd, directory, mask)
        guard wd >= 0 else { return false }
        w.directories[wd] = directory
        w.files[directory] = w.files[directory] ?? [:]
        return true
        #else
        return false
        #endif
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = fd >= 0 ? poll(&pfd, 1, Self.pollIntervalMilliseconds) : {
                usleep(UInt32(Self.pollIntervalMilliseconds) * 1000)
                return Int32(0)
            }()
            var touched: [PersistentDomain] = []
            if ready > 0 {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n > 0 { touched = domains(forEvents: buffer, count: n) }
            }
            touched += pollUnwatched()
            var seen = Set<ObjectIdentifier>()
            for domain in touched where seen.insert(ObjectIdentifier(domain)).inserted {
                domain.reload(origin: .otherProcess, notify: true)
            }
        }
    }

    /// The domains named by a batch of inotify events.
    private func domains(forEvents buffer: [UInt8], count n: Int) -> [PersistentDomain] {
        var out: [PersistentDomain] = []
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset + 16 <= n {
                let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = UnsafeRawBufferPointer(rebasing: raw[(offset + 16)..<min(n, offset + 16 + length)])
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += 16 + length
                watches.withLock { w in
                    if let directory = w.directories[wd], let domains = w.files[directory]?[name] {
                        out += domains
                    }
                }
            }
        }
        return out
    }

    /// Domains in unwatched directories: watch them once their directory
    /// appears; meanwhile report every one whose file signature changed.
    private func pollUnwatched() -> [PersistentDomain] {
        let polled = watches.withLock { $0.polled }
        guard !polled.isEmpty else { return [] }
        var stillPolled: [PersistentDomain] = []
        var out: [PersistentDomain] = []
        for domain in polled {
            let target = FileIO.resolvingSymbolicLinks(domain.path)
            let directory = FileIO.parentDirectory(of: target)
            let watched = watches.withLock { w -> Bool in
                guard addWatch(directory, &w) else { return false }
                w.files[directory, default: [:]][FileIO.lastComponent(of: target), default: []].append(domain)
                return true
            }
            if !watched { stillPolled.append(domain) }
            let known = domain.state.withLock { $0.signature }
            if FileSignature(path: domain.path) != known { out.append(domain) }
        }
        watches.withLock { $0.polled = stillPolled }
        return out
    }
}
