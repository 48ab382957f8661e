#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The kernel's news of changes in watched folders (inotify on Linux), and a
/// way to wake whoever waits for it.
///
/// One instance per owner; the owner waits in ``next(timeoutMilliseconds:)``
/// on one thread only (it reuses one buffer) and calls ``close()`` when done. Where the system has no
/// such facility, ``isAvailable`` is false, no folder can be watched, and
/// ``next(timeoutMilliseconds:)`` only sleeps or wakes: the caller polls.
///
/// ```swift
/// let events = FolderEvents()
/// let watch = events.addWatch("/home/ada/.config")
/// for event in events.next(timeoutMilliseconds: nil) where event.watch == watch { print(event.name) }
/// ```
package final class FolderEvents: @unchecked Sendable {
    /// What happened, as far as a watcher of files cares.
    package struct Flags: OptionSet, Sendable, Hashable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        /// A file opened for writing was closed.
        package static let closedAfterWriting = Flags(rawValue: 1 << 0)
        /// An entry was created.
        package static let created = Flags(rawValue: 1 << 1)
        /// An entry was renamed into the folder.
        package static let movedIn = Flags(rawValue: 1 << 2)
        /// An entry was renamed out of the folder, removed, or its attributes changed.
        package static let changed = Flags(rawValue: 1 << 3)
        /// The watched folder itself was renamed away.
        package static let folderMoved = Flags(rawValue: 1 << 4)
        /// The watch ended (the folder was removed or replaced, or the watch was removed).
        package static let watchEnded = Flags(rawValue: 1 << 5)
        /// The kernel's queue overflowed: any event may have been lost.
        package static let overflow = Flags(rawValue: 1 << 6)
    }

    /// One event: the watch it belongs to (-1 for an overflow), the entry's
    /// name in the folder (empty for the folder itself) and what happened.
    package struct Event: Sendable, Hashable {
        package var watch: Int32
        package var name: String
        package var flags: Flags
        package init(watch: Int32, name: String, flags: Flags) {
            self.watch = watch
            self.name = name
            self.flags = flags
        }
    }

    private let fd: Int32
    /// A pipe that wakes a waiting ``next(timeoutMilliseconds:)`` (read end, write end).
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Where the kernel's records are read (only the waiting thread touches it).
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Opens the kernel's event queue and the wake-up pipe. Never fails:
    /// see ``isAvailable``.
    package init() {
        #if os(Linux)
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        #else
        fd = -1
        #endif
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    /// Whether folders can be watched (false: the caller must poll).
    package var isAvailable: Bool { fd >= 0 }

    /// Watches `folder`: its watch number, or nil when it cannot be watched
    /// (it does not exist, or the system refuses).
    package func addWatch(_ folder: String) -> Int32? {
        #if os(Linux)
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF)
        let wd = inotify_add_watch(fd, folder, mask)
        return wd >= 0 ? wd : nil
        #else
        return nil
        #endif
    }

    /// Stops a watch (a ``Flags/watchEnded`` event follows).
    package func removeWatch(_ watch: Int32) {
        #if os(Linux)
        _ = inotify_rm_watch(fd, watch)
        #endif
    }

    /// Wakes a waiting ``next(timeoutMilliseconds:)`` (from any thread).
    package func wake() {
        guard wakeWrite >= 0 else { return }
        var one: UInt8 = 1
        _ = systemWrite(wakeWrite, &one, 1)
    }

    /// Waits until events arrive, ``wake()`` is called, or `timeoutMilliseconds`
    /// pass (nil: no limit), and returns the events that arrived (none after
    /// a wake-up or a timeout).
    package func next(timeoutMilliseconds: Int32?) -> [Event] {
        if fd < 0 && wakeRead < 0 {
            usleep(UInt32(max(0, timeoutMilliseconds ?? 1000)) * 1000)
            return []
        }
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 2, timeoutMilliseconds ?? -1)
        if fds[1].revents != 0 {
            var drained = [UInt8](repeating: 0, count: 64)
            _ = drained.withUnsafeMutableBytes { systemRead(wakeRead, $0.baseAddress, $0.count) }
        }
        guard fds[0].revents != 0 else { return [] }
        var events: [Event] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            events += Self.parse(buffer, count: n)
        }
        return events
    }

    /// The events in `count` bytes of the kernel's records (`struct inotify_event`).
    package static func parse(_ buffer: [UInt8], count n: Int) -> [Event] {
        var out: [Event] = []
        #if os(Linux)
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset + 16 <= min(n, raw.count) {
                let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = UnsafeRawBufferPointer(rebasing: raw[(offset + 16)..<min(n, offset + 16 + length)])
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += 16 + length
                var flags: Flags = []
                if mask & UInt32(IN_CLOSE_WRITE) != 0 { flags.insert(.closedAfterWriting) }
                if mask & UInt32(IN_CREATE) != 0 { flags.insert(.created) }
                if mask & UInt32(IN_MOVED_TO) != 0 { flags.insert(.movedIn) }
                if mask & UInt32(IN_MOVED_FROM | IN_DELETE | IN_ATTRIB | IN_DELETE_SELF) != 0 { flags.insert(.changed) }
                if mask & UInt32(IN_MOVE_SELF) != 0 { flags.insert(.folderMoved) }
                if mask & UInt32(IN_IGNORED) != 0 { flags.insert(.watchEnded) }
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { flags.insert(.overflow) }
                out.append(Event(watch: wd, name: name, flags: flags))
            }
        }
        #endif
        return out
    }

    /// Closes the queue and the pipe.
    package func close() {
        for descriptor in [fd, wakeRead, wakeWrite] where descriptor >= 0 { _ = systemClose(descriptor) }
    }
}
