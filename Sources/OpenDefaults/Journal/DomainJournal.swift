import PlatformIO
import PropertyList

/// This process's journal of one domain: a file mapped `MAP_SHARED` into
/// which every write appends a checksummed record before it returns, so
/// that the kernel's page cache keeps it if the process dies before its
/// flush (proposal 0007). The owner holds an exclusive `flock` on the file
/// for as long as it lives; a journal whose lock can be taken belongs to a
/// process that is gone and is replayed by whoever next locks the domain.
///
/// Used only under its domain's state lock.
final class DomainJournal: @unchecked Sendable {
    /// The folder of the domain's journals: `.<file>.journals` beside the domain file.
    static func folder(forDomainFile path: String) -> String {
        FileIO.parentDirectory(of: path) + "/." + FileIO.lastComponent(of: path) + ".journals"
    }

    /// The first size of a journal; it doubles when full (until the next
    /// flush rewinds it).
    static let initialCapacity = 256 << 10

    let path: String
    private let fd: FileDescriptor
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var offset = JournalRecord.headerSize

    private init(path: String, fd: FileDescriptor, base: UnsafeMutableRawPointer, capacity: Int) {
        self.path = path
        self.fd = fd
        self.base = base
        self.capacity = capacity
    }

    /// Creates this process's journal for the domain file at `domainPath`.
    /// The space is reserved on disk first (`posix_fallocate`), so that a
    /// full disk is an error here and never a fault when a record is stored.
    static func create(forDomainFile domainPath: String) throws(FileError) -> DomainJournal {
        let folder = folder(forDomainFile: domainPath)
        let stem = folder + "/\(Environment.processID)-\(UInt32.random(in: 0...UInt32.max))"
        // Made under a name recovery ignores, locked, then renamed: another
        // process never sees an unlocked journal of a live process. The
        // folder may be removed by a recovery between mkdir and open: retried.
        var opened: FileDescriptor? = nil
        var lastError = FileError(path: stem + ".creating", reason: "could not be created")
        for _ in 0..<8 {
            do { try FileIO.makeDirectory(folder) } catch {
                var failure: FileError? = error
                if error.isNotFound {
                    // A new user's first write: the preferences folder is made
                    // here, as the flush would make it.
                    try FileIO.makeDirectories(FileIO.parentDirectory(of: domainPath))
                    do { try FileIO.makeDirectory(folder); failure = nil } catch { failure = error }
                }
                if let failure, !failure.isAlreadyThere { throw failure }
                guard let st = try? FileStatus.of(folder, followingLinks: false), st.kind == .directory,
                      st.owner == Environment.effectiveUserID
                else {
                    throw FileError(path: folder, reason: "not a folder of this user's; journaling is off for this domain")
                }
            }
            do {
                opened = try FileDescriptor.open(stem + ".creating", [.readWrite, .create, .exclusive, .noFollow])
                break
            } catch {
                lastError = error
                if !error.isNotFound { break }
            }
        }
        guard let fd = opened else { throw lastError }
        let path = stem + ".journal"
        func fail(_ error: FileError) -> FileError {
            fd.close()
            try? FileIO.remove(stem + ".creating")
            try? FileIO.remove(path)
            return error.code != 0 ? FileError(path: path, errno: error.code) : FileError(path: path, reason: error.reason)
        }
        guard fd.tryLock(exclusive: true) else { throw fail(FileError(path: path, reason: "could not be locked")) }
        do { try fd.reserve(initialCapacity, path: path) } catch { throw fail(error) }
        do { try FileIO.rename(stem + ".creating", to: path) } catch { throw fail(error) }
        guard let map = SharedMapping.map(fd, bytes: initialCapacity) else {
            throw fail(FileError(path: path, reason: "could not be mapped into memory"))
        }
        let journal = DomainJournal(path: path, fd: fd, base: map, capacity: initialCapacity)
        JournalRecord.magic.withUnsafeBytes { map.copyMemory(from: $0.baseAddress!, byteCount: 8) }
        map.storeBytes(of: UInt64(0), toByteOffset: 8, as: UInt64.self)
        map.storeBytes(of: UInt64(Environment.processID).littleEndian, toByteOffset: 16, as: UInt64.self)
        map.storeBytes(of: UInt64(0), toByteOffset: 24, as: UInt64.self)
        return journal
    }

    /// Appends a record (`continues`: the next record is part of the same
    /// batch, replayed only together with it); false when the journal could not grow (the write
    /// stays in memory, as without a journal, and the caller reports it).
    @inline(__always)
    func append(sequence: UInt64, operation: JournalRecord.Operation, key: String, value: PropertyList?,
                continues: Bool = false) -> Bool {
        let payload = JournalRecord.payload(value)
        let length = JournalRecord.length(keyBytes: key.utf8.count, payload: payload)
        if offset + length + 8 > capacity, !grow(toHold: offset + length + 8) { return false }
        JournalRecord.write(at: base + offset, length: length, sequence: sequence, operation: operation, key: key,
                            payload: payload, continues: continues)
        offset += length
        return true
    }

    private func grow(toHold needed: Int) -> Bool {
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        guard (try? fd.reserve(newCapacity, path: path)) != nil, let map = SharedMapping.map(fd, bytes: newCapacity) else { return false }
        SharedMapping.unmap(base, bytes: capacity)
        base = map
        capacity = newCapacity
        return true
    }

    /// Where the next record goes: records before it are in the journal.
    var end: Int { offset }

    /// Records that every record through `sequence` — all those before
    /// `live` — is in the domain file, and moves the records written since
    /// (at `live..<end`) to the top, so that the journal holds only what
    /// no flush has written yet and grows only until the next flush, even
    /// while writes never pause.
    ///
    /// The move is safe against death at any store: the header's start is
    /// pointed at the live records before they are copied over the dead
    /// ones, and back at the top after; a reader follows the start.
    func markApplied(through sequence: UInt64, keepingFrom live: Int) {
        let top = JournalRecord.headerSize
        base.storeBytes(of: sequence.littleEndian, toByteOffset: 8, as: UInt64.self)
        let count = offset - live
        if count == 0 {
            offset = top
            shrinkIfOversized()
        } else if live - top >= count {
            JournalRecord.setStart(live, in: base)
            (base + top).copyMemory(from: base + live, byteCount: count)
            JournalRecord.setStart(top, in: base)
            offset = top + count
        }
        // Otherwise the live records, larger than the dead space before
        // them, stay where they are; a later flush moves them.
    }

    /// Gives back the space a burst made the journal grow to, once writing
    /// pauses (a flush leaves the journal empty): the tail is unmapped and
    /// the file cut (the mapping's start does not move). A writer that
    /// never pauses keeps its space rather than shrink and grow again.
    private func shrinkIfOversized() {
        let target = Self.initialCapacity
        guard capacity >= target * 4 else { return }
        SharedMapping.unmap(base + target, bytes: capacity - target)
        capacity = target
        fd.truncate(to: target)
    }

    /// Closes the journal; `removing` deletes it (everything in it is in the
    /// domain file), otherwise it stays for the next process to replay.
    func close(removing: Bool) {
        if removing {
            try? FileIO.remove(path)
            FileIO.removeEmptyDirectory(FileIO.parentDirectory(of: path))  // only when no other journal is left
        }
        SharedMapping.unmap(base, bytes: capacity)
        fd.close()
    }
}
