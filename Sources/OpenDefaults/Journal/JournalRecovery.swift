import PlatformIO
import PropertyList

/// The journals of processes that are gone, found under a domain's file
/// lock, replayed onto the domain, and removed once what they held is in
/// the domain file.
struct JournalRecovery {
    /// A dead process's journal, held locked until it is removed.
    struct Orphan {
        let path: String
        let fd: FileDescriptor
        let records: [JournalRecord.Decoded]
        let modified: Int64
    }

    var orphans: [Orphan] = []
    /// Journals that could not be read as journals, moved aside and reported.
    var problems: [StorageError] = []

    var isEmpty: Bool { orphans.isEmpty }

    /// Whether the domain file at `domainPath` has a journal folder at all
    /// (one `stat`; the common answer is no).
    static func mayHaveJournals(forDomainFile domainPath: String) -> Bool {
        FileStatus.exists(DomainJournal.folder(forDomainFile: domainPath))
    }

    /// The names of the journals in `folder` (`*.journal`; not those being
    /// created, nor those set aside).
    static func journalNames(in folder: String) -> [String] {
        (FileIO.directoryEntries(folder) ?? []).filter { $0.hasSuffix(".journal") }
    }

    /// Whether some journal of the domain file at `domainPath` belongs to a
    /// process that is gone (its lock can be taken): a read of one key must
    /// then load the domain, which replays it. A few system calls per
    /// journal; none when there is no journal folder.
    static func hasOrphans(forDomainFile domainPath: String) -> Bool {
        guard mayHaveJournals(forDomainFile: domainPath) else { return false }
        let folder = DomainJournal.folder(forDomainFile: domainPath)
        for name in journalNames(in: folder) {
            guard let fd = try? FileDescriptor.open(folder + "/" + name, [.noFollow, .nonBlocking]) else { continue }
            defer { fd.close() }
            if fd.tryLock(exclusive: false) { return true }
        }
        return false
    }

    /// Collects the journals of dead processes for `domainPath`, skipping
    /// `own` and every journal whose owner still holds its lock. Call under
    /// the domain's file lock.
    static func collect(forDomain domain: String, file domainPath: String, own: String?) -> JournalRecovery {
        var recovery = JournalRecovery()
        let folder = DomainJournal.folder(forDomainFile: domainPath)
        for name in journalNames(in: folder) {
            let path = folder + "/" + name
            if path == own { continue }
            // Read-only: closing it must not look like its owner's exit to
            // other processes' watchers (`JournalWatch`).
            guard let fd = try? FileDescriptor.open(path, [.noFollow, .nonBlocking]) else { continue }
            guard let st = FileStatus.of(fd), st.kind == .regular,
                  st.owner == Environment.effectiveUserID || Environment.effectiveUserID == 0
            else {
                fd.close()
                continue
            }
            // A journal whose lock is held belongs to a live process: not ours to replay.
            guard fd.tryLock(exclusive: true) else { fd.close(); continue }
            let bytes: [UInt8]
            do { bytes = try fd.readAll(path: path) } catch {
                recovery.problems.append(StorageError(domain: domain, path: path, kind: .unreadable, reason: error.reason))
                fd.close()
                continue
            }
            let decoded: Result<[JournalRecord.Decoded], JournalError> = bytes.withUnsafeBytes { raw in
                Result { () throws(JournalError) in try JournalRecord.decode(raw) }
            }
            switch decoded {
            case .success(let records):
                recovery.orphans.append(Orphan(path: path, fd: fd, records: records, modified: st.modified))
            case .failure(let error):
                // Garbage: set aside like a corrupt domain file, never replayed.
                let aside = path + ".corrupt"
                let moved = (try? FileIO.rename(path, to: aside)) != nil
                recovery.problems.append(StorageError(domain: domain, path: path, kind: .corrupt(movedTo: moved ? aside : nil), reason: error.reason))
                fd.close()
            }
        }
        recovery.orphans.sort { $0.modified < $1.modified }
        return recovery
    }

    /// Applies every orphan's records, oldest journal first.
    func apply(to entries: inout [LiteralString: PropertyList]) {
        for orphan in orphans { JournalRecord.apply(orphan.records, to: &entries) }
    }

    /// Whether any orphan holds a record (an empty one only needs removing).
    var hasRecords: Bool { orphans.contains { !$0.records.isEmpty } }

    /// Removes the orphans (their records are in the domain file now).
    func remove() {
        for orphan in orphans {
            try? FileIO.remove(orphan.path)
            orphan.fd.close()
        }
        if let first = orphans.first { FileIO.removeEmptyDirectory(FileIO.parentDirectory(of: first.path)) }
    }

    /// Releases the orphans without removing them (the domain file could not be written).
    func release() {
        for orphan in orphans { orphan.fd.close() }
    }
}
