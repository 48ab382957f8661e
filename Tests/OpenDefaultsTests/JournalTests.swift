import Foundation
@_spi(Engine) @testable import OpenDefaults
import PlatformIO
import SharedTables
import PropertyList
import Testing
import TestSupport
import Synchronization

/// A write that returned survives the death of its process (issue 13):
/// real children killed by real signals, and journals cut, corrupted or
/// still owned.
@Suite("Journal: writes that outlive their process", .offThePool, .reportsSeeds, .exclusive(.crashes), .timeLimit(.minutes(10)))
struct JournalTests {
    static let children = ProcessInfo.processInfo.environment["CI"] == "true" ? 1_000 : 100

    func helper(_ sandbox: Sandbox, _ args: [String]) throws -> Process {
        try startProcess(helperPath, args, environment: sandbox.environment).process
    }

    @Test("children that set a key and die at once by SIGKILL or SIGTERM lose nothing")
    func childrenDieAfterSet() throws {
        let sandbox = try Sandbox()
        var running: [Process] = []
        for i in 0..<Self.children {
            running.append(try helper(sandbox, ["set-and-die", "com.example.deaths", "key\(i)", "v\(i)", i % 2 == 0 ? "9" : "15"]))
            if running.count >= 16 {
                for p in running { p.waitUntilExit() }
                running.removeAll()
            }
        }
        for p in running { p.waitUntilExit() }
        // A new process reads every key.
        let store = sandbox.makeStore()
        let domain = store.domain("com.example.deaths")
        for i in 0..<Self.children { #expect(domain.value(forKey: "key\(i)") == .string("v\(i)"), "key\(i)") }
        // Journals of dead processes are removed once replayed.
        let folder = DomainJournal.folder(forDomainFile: sandbox.path("com.example.deaths"))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).isEmpty)
    }

    @Test("the defaults tool sees a dead process's write")
    func toolSeesIt() throws {
        let sandbox = try Sandbox()
        let p = try helper(sandbox, ["set-and-die", "com.example.tool", "k", "survived", "9"])
        p.waitUntilExit()
        let tool = productsDirectory.appendingPathComponent("defaults").path
        let r = try run(tool, ["read", "com.example.tool", "k"], environment: sandbox.environment)
        #expect(r.stdout == "survived\n", "\(r.stderr)")
    }

    @Test("a child killed in a burst of 10,000 sets leaves a prefix of it")
    func burstLeavesAPrefix() throws {
        let sandbox = try Sandbox()
        for delay in [0.005, 0.02, 0.05] {
            let name = "com.example.burst\(Int(delay * 1000))"
            let (p, out) = try startHelper(["burst", name, "10000"], in: sandbox)
            _ = out.availableData  // "ready"
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let entries = sandbox.makeStore().domain(name).entries
            let n = entries.count
            #expect(n > 0)
            for i in 0..<n { #expect(entries["k\(i)"] == PropertyList(i), "k\(i) of a prefix of \(n)") }
        }
    }

    @Test("writers dying at random while others write lose nothing that returned")
    func writersDyingAtRandom() throws {
        let sandbox = try Sandbox()
        var acked: [String: Int] = [:]
        var processes: [(Process, FileHandle, String)] = []
        for w in 0..<8 {
            let (p, out) = try startHelper(["acked", "com.example.random", "w\(w)-"], in: sandbox)
            processes.append((p, out, "w\(w)-"))
        }
        // Each writer has returned from a first set before the killing starts.
        var early: [String: String] = [:]
        for (_, out, prefix) in processes {
            var text = ""
            while !text.contains("\n") {
                let chunk = out.availableData
                if chunk.isEmpty { break }  // the writer ended: its status says why
                text += String(decoding: chunk, as: UTF8.self)
            }
            early[prefix] = text
        }
        var random = SeededRandom()
        for (index, (p, _, _)) in processes.enumerated() {
            Thread.sleep(forTimeInterval: Double.random(in: 0.01...0.1, using: &random))
            kill(p.processIdentifier, index % 2 == 0 ? SIGKILL : SIGTERM)
        }
        for (p, out, prefix) in processes {
            p.waitUntilExit()
            let text = early[prefix, default: ""] + String(decoding: out.readDataToEndOfFile(), as: UTF8.self)
            // Only whole lines: each was printed after its set returned.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            acked[prefix] = lines.compactMap { Int($0) }.max() ?? -1
        }
        let entries = sandbox.makeStore().domain("com.example.random").entries
        for (prefix, last) in acked {
            #expect(last >= 0, "\(prefix) wrote something")
            for i in 0...max(last, 0) where last >= 0 { #expect(entries["\(prefix)\(i)"] == PropertyList(i), "\(prefix)\(i) returned but was lost") }
        }
    }

    /// A journal file as a dead process leaves it, made by this process.
    /// `continued`: the sequences whose record says the next one is of the same batch.
    func writeJournal(_ sandbox: Sandbox, domain: String, records: [(UInt64, String, PropertyList?)], name: String = "1-1.journal",
                      continued: Set<UInt64> = []) throws -> String {
        let folder = DomainJournal.folder(forDomainFile: sandbox.path(domain))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var bytes = [UInt8](repeating: 0, count: 4096)
        bytes.replaceSubrange(0..<8, with: JournalRecord.magic)
        var offset = JournalRecord.headerSize
        bytes.withUnsafeMutableBytes { raw in
            for (sequence, key, value) in records {
                let payload = JournalRecord.payload(value)
                let length = JournalRecord.length(keyBytes: key.utf8.count, payload: payload)
                JournalRecord.write(at: raw.baseAddress! + offset, length: length, sequence: sequence, operation: value == nil ? .remove : .set, key: key, payload: payload,
                                   continues: continued.contains(sequence))
                offset += length
            }
        }
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("every value type survives the journal")
    func valueTypes() throws {
        let sandbox = try Sandbox()
        let values: [PropertyList] = [true, false, 42, -7, .integer(.init(UInt64.max)), 2.5, "text", "", "ünï 日本",
                                      .data(Data([0, 1, 2])), .date(Date(timeIntervalSinceReferenceDate: 12345)),
                                      [1, "a"], ["k": ["n": 1]], .uid(7)]
        let records = values.enumerated().map { (UInt64($0.offset + 1), "k\($0.offset)", Optional($0.element)) }
        _ = try writeJournal(sandbox, domain: "com.example.types", records: records)
        let domain = sandbox.makeStore().domain("com.example.types")
        for (i, v) in values.enumerated() { #expect(domain.value(forKey: "k\(i)") == v) }
    }

    @Test("a several-key write is replayed whole or not at all")
    func batches() throws {
        let sandbox = try Sandbox()
        // 1 alone; 2–4 a batch that was closed; 5–6 a batch whose end never came.
        _ = try writeJournal(sandbox, domain: "com.example.batch",
                             records: [(1, "a", 1), (2, "b", 2), (3, "c", 3), (4, "d", 4), (5, "e", 5), (6, "f", 6)],
                             continued: [2, 3, 5, 6])
        let domain = sandbox.makeStore().domain("com.example.batch")
        #expect(domain.entries == ["a": 1, "b": 2, "c": 3, "d": 4])

        // A batch cut by a torn record in its middle is dropped whole too.
        let path = try writeJournal(sandbox, domain: "com.example.cut", records: [(1, "a", 1), (2, "b", 2), (3, "c", 3)],
                                    continued: [1, 2])
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let second = JournalRecord.headerSize + JournalRecord.length(keyBytes: 1, payload: .word(tag: 3, 0))
        bytes[second + 24] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(sandbox.makeStore().domain("com.example.cut").isEmpty)
    }

    @Test("a child killed while setting 20,000 keys at once leaves all of them or none")
    func killedInABatch() throws {
        let sandbox = try Sandbox()
        var random = SeededRandom()
        /// Starts a child and reads its output up to `line`: the child, its
        /// output so far and the rest to come, and the time that took after "ready".
        func start(_ domain: String, until line: String) throws -> (Process, FileHandle, String, Duration) {
            let (p, out) = try startHelper(["batch", domain, "20000"], in: sandbox)
            var seen = ""
            var readyAt: ContinuousClock.Instant? = nil
            while !seen.contains(line + "\n") {
                let chunk = out.availableData
                if chunk.isEmpty { break }
                seen += String(decoding: chunk, as: UTF8.self)
                if readyAt == nil, seen.contains("ready\n") { readyAt = .now }
            }
            return (p, out, seen, readyAt.map { .now - $0 } ?? .zero)
        }
        // How long the batch takes here: the kills land inside it or just after.
        let (first, _, firstSeen, took) = try start("com.example.batchkill", until: "done")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        try #require(firstSeen.contains("done\n"), "the child never finished its batch: \(firstSeen)")
        var span = max(Int(took.components.attoseconds / 1_000_000_000_000) + Int(took.components.seconds) * 1_000_000, 1000)
        var inside = 0, wholesInside = 0, attempts = 0
        // Kills until 8 landed inside a batch (at most 60): the first batch, timed above, can be
        // slower than the rest, so a kill that came after "done" narrows the window it is aimed at.
        while inside < 8 && attempts < 60 {
            let attempt = attempts
            attempts += 1
            let domain = "com.example.batchkill\(attempt)"
            let (child, out, _, _) = try start(domain, until: "ready")
            usleep(UInt32.random(in: 0...UInt32(span * 3 / 2), using: &random))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            // "done" comes once the set returned: without it, the kill landed inside the batch.
            let finished = String(decoding: out.readDataToEndOfFile(), as: UTF8.self).contains("done\n")
            let entries = sandbox.makeStore().domain(domain).entries
            if finished {
                #expect(entries.count == 20_000, "attempt \(attempt) (seed \(random.seed)): the set had returned, yet \(entries.count) of 20,000 keys")
                span = max(span * 3 / 4, 1000)
            } else {
                inside += 1
                #expect(entries.isEmpty || entries.count == 20_000, "attempt \(attempt) (seed \(random.seed)): \(entries.count) of 20,000 keys")
                if entries.count == 20_000 { wholesInside += 1 }
            }
        }
        print("killed in a batch of \(took): \(inside) of \(attempts) kills inside it, \(wholesInside) of those left the whole batch, the others none (seed \(random.seed))")
        // If no kill landed inside a batch, nothing was tested.
        #expect(inside >= 8, "only \(inside) of \(attempts) kills landed inside the batch (seed \(random.seed))")
    }

    @Test("a torn or corrupted record ends the journal there; garbage is set aside")
    func tornAndCorrupt() throws {
        let sandbox = try Sandbox()
        let path = try writeJournal(sandbox, domain: "com.example.torn", records: [(1, "a", 1), (2, "b", 2), (3, "c", 3)])
        // Cut the third record in half.
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let third = JournalRecord.headerSize + 2 * JournalRecord.length(keyBytes: 1, payload: .word(tag: 3, 0))
        for i in (third + 12)..<bytes.count { bytes[i] = 0 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let torn = sandbox.makeStore().domain("com.example.torn")
        #expect(torn.value(forKey: "a") == 1 && torn.value(forKey: "b") == 2 && torn.value(forKey: "c") == nil)

        let path2 = try writeJournal(sandbox, domain: "com.example.flip", records: [(1, "a", 1), (2, "b", 2)])
        var flipped = try Array(Data(contentsOf: URL(fileURLWithPath: path2)))
        flipped[JournalRecord.headerSize + 24] ^= 0xFF  // the first record's key
        try Data(flipped).write(to: URL(fileURLWithPath: path2))
        let flip = sandbox.makeStore().domain("com.example.flip")
        #expect(flip.isEmpty)

        let folder = DomainJournal.folder(forDomainFile: sandbox.path("com.example.junk"))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("not a journal at all, just junk bytes".utf8).write(to: URL(fileURLWithPath: folder + "/9-9.journal"))
        let store = DomainStore(layout: sandbox.layout)
        let errors = ErrorRecorder()
        store.setErrorHandler { errors.add($0) }
        #expect(store.domain("com.example.junk").isEmpty)
        #expect(FileManager.default.fileExists(atPath: folder + "/9-9.journal.corrupt"))
        #expect(errors.all.contains { if case .corrupt = $0.kind { $0.reason.contains("not a journal") } else { false } })
    }

    @Test("a journal whose owner is alive is not replayed by others")
    func liveOwner() throws {
        let sandbox = try Sandbox()
        let path = try writeJournal(sandbox, domain: "com.example.live", records: [(1, "mine", "unflushed")])
        let fd = open(path, O_RDWR)
        #expect(flock(fd, LOCK_EX) == 0)
        let r = try run(helperPath, ["get", "com.example.live", "mine"], environment: sandbox.environment)
        #expect(r.stdout == "(absent)\n")
        #expect(FileManager.default.fileExists(atPath: path))
        close(fd)  // the owner dies
        let after = try run(helperPath, ["get", "com.example.live", "mine"], environment: sandbox.environment)
        #expect(after.stdout == "unflushed\n", "\(after.stdout)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a clean exit leaves no journal")
    func cleanExit() throws {
        let sandbox = try Sandbox()
        let r = try run(helperPath, ["write", "com.example.clean", "k", "100"], environment: sandbox.environment)
        #expect(r.status == 0)
        #expect(!FileManager.default.fileExists(atPath: DomainJournal.folder(forDomainFile: sandbox.path("com.example.clean"))))
        #expect(try sandbox.fileValue("com.example.clean").dictionaryValue?.count == 100)
    }

    @Test("the journal is rewound after each flush, so it grows only until the next one")
    func bounded() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let domain = store.domain("com.example.bounded")
        for round in 0..<20 {
            for i in 0..<2_000 { domain.set(.string(String(repeating: "x", count: 100) + "\(round)"), forKey: "k\(i)") }
            try domain.synchronize()
        }
        let journal = domain.state.withLock { $0.journal }
        let journalPath = try #require(journal).path
        let size = try #require(try FileManager.default.attributesOfItem(atPath: journalPath)[.size] as? Int)
        // 2,000 records of ~140 bytes fit in 512 KiB; 40,000 would not.
        #expect(size <= 512 << 10, "journal grew to \(size) bytes")
    }

    @Test("a writer that never pauses: the journal keeps only what no flush has written")
    func boundedWithoutPause() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let domain = store.domain("com.example.busy")
        // Sets with no gap while the background flush runs: at least 220,000
        // (8.8 MB of records) and across at least 20 flushes (each replaces
        // the file: a new inode), however the machine schedules them.
        let clock = ContinuousClock()
        let start = clock.now
        let file = sandbox.path("com.example.busy")
        var i = 0
        var flushes = 0
        var lastInode: UInt64? = nil
        // What the journal holds each time a flush is seen to have ended.
        var heldAfterFlushes: [Int] = []
        while (i < 220_000 || flushes < 20) && clock.now - start < .seconds(60) {
            for _ in 0..<1000 { domain.set(PropertyList(i), forKey: "counter"); i += 1 }
            if case .success(let signature?) = FileSignature.lookup(file), signature.inode != lastInode {
                lastInode = signature.inode
                flushes += 1
                heldAfterFlushes.append(domain.state.withLock { $0.journal?.end } ?? 0)
            }
        }
        #expect(flushes >= 20, "only \(flushes) flushes in 60 s")
        // Without the move every flush would leave all of it; with it, what
        // was written while the flush ran (a stalled flush may leave more).
        let typical = heldAfterFlushes.sorted()[heldAfterFlushes.count / 2]
        #expect(typical < i * 40 / 10, "after a typical flush the journal held \(typical) bytes of \(i * 40) written")
        let journal = try #require(domain.state.withLock { $0.journal })
        func size() throws -> Int { try #require(try FileManager.default.attributesOfItem(atPath: journal.path)[.size] as? Int) }
        // Without the move, \(i) records of 40 bytes would all be there; with
        // it, about what was written while one flush ran (how long that is
        // depends on the disk and the machine's load).
        #expect(i * 40 > 4 << 20, "only \(i) sets: the test did not outrun a journal")
        let during = try size()
        #expect(domain.value(forKey: "counter") == PropertyList(i - 1))
        // Once a flush has written everything, the space a burst took is given back.
        try domain.synchronize()
        let after = try size()
        #expect(after < 4 * DomainJournal.initialCapacity, "\(after) bytes after a flush (\(during) during the burst)")
    }

    @Test("records moved to the top are read from the header's start, wherever a death left it")
    func movedRecords() throws {
        let sandbox = try Sandbox()
        // A journal whose records 1–2 were applied, and 3–4 written after them:
        // the header points at 3, as during the move.
        let path = try writeJournal(sandbox, domain: "com.example.moved", records: [(1, "a", 1), (2, "b", 2), (3, "c", 3), (4, "d", 4)])
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let third = JournalRecord.headerSize + 2 * JournalRecord.length(keyBytes: 1, payload: .word(tag: 3, 0))
        withUnsafeBytes(of: UInt64(2).littleEndian) { bytes.replaceSubrange(8..<16, with: $0) }
        withUnsafeBytes(of: UInt64(third).littleEndian) { bytes.replaceSubrange(24..<32, with: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(sandbox.makeStore().domain("com.example.moved").entries == ["c": 3, "d": 4])

        // A start that is not a record's place: the journal is set aside, not guessed at.
        let bad = try writeJournal(sandbox, domain: "com.example.badstart", records: [(1, "a", 1)])
        var junk = try Array(Data(contentsOf: URL(fileURLWithPath: bad)))
        withUnsafeBytes(of: UInt64(13).littleEndian) { junk.replaceSubrange(24..<32, with: $0) }
        try Data(junk).write(to: URL(fileURLWithPath: bad))
        #expect(sandbox.makeStore().domain("com.example.badstart").isEmpty)
        #expect(FileManager.default.fileExists(atPath: bad + ".corrupt"))
    }

    @Test("a new user's first write is journaled (the preferences folder does not exist yet)")
    func firstWriteOfANewUser() throws {
        let sandbox = try Sandbox()
        try FileManager.default.removeItem(atPath: sandbox.userDirectory)
        let child = try helper(sandbox, ["set-and-die", "com.example.first", "k", "v", "9"])
        child.waitUntilExit()
        #expect(sandbox.makeStore().domain("com.example.first").value(forKey: "k") == "v")
    }

    @Test("a process already running sees a dead process's write, told as another process's change")
    func runningProcessSeesADeath() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let domain = store.domain("com.example.watching")
        let recorder = ChangeRecorder(store)
        // This process never writes the domain: only the death can tell it.
        for round in 0..<5 {
            let child = try helper(sandbox, ["set-and-die", "com.example.watching", "k\(round)", "v\(round)", round % 2 == 0 ? "9" : "15"])
            let clock = ContinuousClock()
            child.waitUntilExit()
            let died = clock.now
            #expect(eventually { domain.value(forKey: "k\(round)") == .string("v\(round)") }, "round \(round)")
            print("a death seen by a running process \(clock.now - died) after it")
            #expect(eventually { recorder.all.contains { $0.changes["k\(round)"]?.new == .string("v\(round)") && $0.origin == .otherProcess } })
        }
        // Each journal was replayed and removed.
        #expect(eventually { ((try? FileManager.default.contentsOfDirectory(atPath: DomainJournal.folder(forDomainFile: sandbox.path("com.example.watching")))) ?? []).isEmpty })
    }
}
