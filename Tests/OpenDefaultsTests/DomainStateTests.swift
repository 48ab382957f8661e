import Foundation
import LookalikeStrings
import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
import PropertyList
import Synchronization
import PlatformIO
import SharedTables

/// The persistent domain's pieces against models: the hash table of pending
/// changes, the merge a flush makes, and the whole domain through random
/// writes, replacements, flushes and another writer's edits. Every step of
/// each is followed by the pieces' `_checkInvariants()`. Seeded: a failure
/// prints its seed; `OPENDEFAULTS_SEED=<seed>` replays it.
@Suite("A persistent domain's state against a dictionary model", .reportsSeeds, .timeLimit(.minutes(10)))
struct DomainStateTests {
    /// Keys from a small pool (so that keys come back), lookalikes among them.
    static func key(_ random: inout SeededRandom, pool: Int) -> String {
        let n = Int(random.next() % UInt64(pool))
        let lookalikes = Lookalikes.groups.flatMap { $0 }
        return n < lookalikes.count ? lookalikes[n] : "key\(n)"
    }

    @Test("the pending changes' hash table agrees with a dictionary through growth, removals, changes in place and lookalike keys")
    func probeTableModel() {
        var random = SeededRandom()
        var table = ProbeTable<Int>()
        var model: [LiteralString: Int] = [:]
        // (Plain comparisons in the loop, one expectation per check: a synchronous test
        // holds one of the test run's threads while it runs.)
        var mismatches: [String] = []
        for step in 0..<12_000 {
            // Grows to about 1,000 keys, then shrinks: rehashes and long probe runs both ways.
            let pool = step < 6_000 ? 2_000 : 400
            let key = Self.key(&random, pool: pool)
            let hash = KeyHash.hash(key)
            let roll = random.next() % 3
            if roll == 0 || step >= 8_000 {
                if table.remove(key, hash: hash) != model.removeValue(forKey: LiteralString(key)) { mismatches.append("remove at \(step)") }
            } else if roll == 1 {
                if table.set(key, hash: hash, step) != model.updateValue(step, forKey: LiteralString(key)) { mismatches.append("set at \(step)") }
            } else {
                // In place: the old value out, the new one in (as the pending changes record a write).
                let old = table.modify(key, hash: hash, inserting: { step }) { value -> Int in defer { value = step }; return value }
                if old != model.updateValue(step, forKey: LiteralString(key)) { mismatches.append("modify at \(step)") }
            }
            if step % 500 == 0 {
                table._checkInvariants()
                if table.count != model.count { mismatches.append("count at \(step)") }
                for (k, v) in model where table.get(k.string, hash: KeyHash.hash(k.string)) != v { mismatches.append("get \(k.string) at \(step)") }
            }
        }
        table._checkInvariants()
        #expect(mismatches.isEmpty, "seed \(random.seed): \(mismatches.prefix(5))")
    }

    @Test("sets, batches and replacements as transitions of the value: reads, count and outcome as a dictionary says, through 5,000 seeded steps")
    func setAndReplaceTransitions() {
        var random = SeededRandom()
        var state = DomainState()
        var model: [LiteralString: PropertyList] = [:]
        let keys = (0..<12).map { "k\($0)" }
        for step in 0..<5_000 {
            let key = keys[Int(random.next() % UInt64(keys.count))]
            let value: PropertyList? = random.next() % 3 == 0 ? nil : .integer(.init(Int64(random.next() % 4)))
            let sequence = state.sequence
            switch random.next() % 8 {
            case 0..<5:
                let before = model[LiteralString(key)]
                let outcome = state.set(value, forKey: key, hash: KeyHash.hash(key))
                #expect(outcome == (before == value ? .unchanged : .changed(old: before)),
                        "step \(step), seed \(random.seed)")
                model[LiteralString(key)] = value
            case 5, 6:
                let before = model[LiteralString(key)]
                #expect(state.setInBatch(value, forKey: key) == before, "step \(step), seed \(random.seed)")
                model[LiteralString(key)] = value
            default:
                var new: [LiteralString: PropertyList] = [:]
                for k in keys where random.next() % 2 == 0 { new[LiteralString(k)] = .integer(.init(Int64(random.next() % 4))) }
                let changes = state.beginReplace(with: new)
                #expect(Set(changes.keys) == Set(Set(model.keys).union(new.keys).filter { model[$0] != new[$0] }), "step \(step), seed \(random.seed)")
                state.finishReplace(with: new)
                #expect(state.replaced == state.sequence && state.pending.isEmpty)
                model = new
            }
            #expect(state.sequence == sequence + 1, "every transition takes one sequence number")
            #expect(state.values == model && state.count == model.count, "step \(step), seed \(random.seed)")
            state._checkInvariants()
        }
    }

    @Test("a flush's merge: the file with this process's changes on top; observers hear of the other writer's changes to keys not pending")
    func mergeModel() {
        var random = SeededRandom()
        func value(_ n: UInt64) -> PropertyList { n % 5 == 0 ? .string("caf\u{E9}") : .integer(.init(Int64(n % 7))) }
        for round in 0..<300 {
            var seen: [LiteralString: PropertyList] = [:]
            for _ in 0..<(random.next() % 40) { seen[LiteralString(Self.key(&random, pool: 60))] = value(random.next()) }
            // Another process edits the file.
            var file = seen
            for _ in 0..<(random.next() % 20) {
                let k = LiteralString(Self.key(&random, pool: 60))
                if random.next() % 3 == 0 { file[k] = nil } else { file[k] = value(random.next()) }
            }
            // This process's unwritten changes.
            var pending = PendingChanges()
            var ours: [LiteralString: PropertyList?] = [:]
            var sequence: UInt64 = 0
            for _ in 0..<(random.next() % 20) {
                let k = Self.key(&random, pool: 60)
                let v: PropertyList? = random.next() % 3 == 0 ? nil : value(random.next())
                sequence += 1
                _ = pending.record(k, v, sequence: sequence)
                ours[LiteralString(k)] = .some(v)
            }
            pending._checkInvariants()
            let (written, heard) = DomainState.merge(file: file, seen: seen, pending: pending)
            var expected = file
            for (k, v) in ours { expected[k] = v }
            #expect(Lookalikes.sameScalars(.dictionary(written), .dictionary(expected)), "seed \(random.seed), round \(round)")
            var expectedHeard: Set<LiteralString> = []
            for k in Set(seen.keys).union(file.keys) where seen[k] != file[k] && ours[k] == nil { expectedHeard.insert(k) }
            #expect(Set(heard.keys) == expectedHeard, "seed \(random.seed), round \(round)")
            for (k, change) in heard { #expect(change.old == seen[k] && change.new == file[k], "seed \(random.seed), round \(round)") }
        }
    }

    /// A state with `base` and the pending `changes` (sequences 1, 2, …).
    static func state(base: [LiteralString: PropertyList], changes: [(String, PropertyList?)]) -> DomainState {
        var s = DomainState()
        s.base = base
        for (key, value) in changes {
            s.sequence += 1
            _ = s.pending.record(key, value, sequence: s.sequence)
        }
        s.recount()
        s._checkInvariants()
        return s
    }

    @Test("a flush's end: what it wrote becomes the base; a write made while it wrote stays pending on top and hides its key from what observers hear")
    func flushTransition() {
        var s = Self.state(base: ["a": 1, "b": 2], changes: [("a", 10), ("c", nil)])
        s.flushScheduled = true
        let snapshot = s.beginFlush(recovering: false)
        #expect(!s.flushScheduled && !snapshot.isEmpty && snapshot.flushedUpTo == 2)
        // While the file is written: this process sets "b"; the file turned out to have "d" from another process.
        s.sequence += 1
        _ = s.pending.record("b", 20, sequence: s.sequence)
        s.recount()
        let written: [LiteralString: PropertyList] = ["a": 10, "b": 2, "d": 4]
        let outcome = s.finishFlush(snapshot, written: written, signature: nil, format: .xml,
                                    diskChanges: ["d": .init(old: nil, new: 4), "b": .init(old: 2, new: 3)], edited: [:])
        s._checkInvariants()
        #expect(s.base == written && s.format == .xml && s.lastError == nil)
        #expect(s.pending.count == 1 && s.value(forKey: "b") == 20 && s.value(forKey: "a") == 10)
        #expect(Set(outcome.otherProcess.keys) == ["d"] && outcome.publish)
        #expect(s.count == 3)
    }

    @Test("a flush's end after the whole domain was replaced while it wrote: the replacement stays, to be written next, and nothing is reported")
    func flushTransitionAfterAReplacement() {
        var s = Self.state(base: ["a": 1], changes: [("a", 2)])
        let snapshot = s.beginFlush(recovering: false)
        s.sequence += 1
        s.replaced = s.sequence
        s.base = ["z": 26]
        s.pending.removeAll()
        s.recount()
        let outcome = s.finishFlush(snapshot, written: ["a": 2], signature: nil, format: .binary,
                                    diskChanges: ["q": .init(old: nil, new: 1)], edited: ["a": .init(old: 1, new: 2)])
        s._checkInvariants()
        #expect(s.replaced == s.sequence && s.base == ["z": 26])
        #expect(outcome.otherProcess.isEmpty && outcome.edited.isEmpty && !outcome.publish)
    }

    @Test("a recovery does not take the place of the scheduled flush")
    func recoveryKeepsTheScheduledFlush() {
        var s = Self.state(base: [:], changes: [("k", 1)])
        s.flushScheduled = true
        _ = s.beginFlush(recovering: true)
        #expect(s.flushScheduled)
    }

    @Test("a reload: the file's entries become the base under the pending changes; a first load always publishes; a replaced domain keeps its replacement")
    func reloadTransition() {
        var s = Self.state(base: ["a": 1], changes: [("b", 5)])
        let disk: [LiteralString: PropertyList] = ["a": 2, "b": 3, "c": 4]
        let heard = s.finishReload(disk: disk, signature: nil, format: .xml, error: nil,
                                   diskChanges: DomainChange.diff(["a": 1], disk), reporting: true)
        s._checkInvariants()
        #expect(Set(heard.changes.keys) == ["a", "c"] && heard.publish)
        #expect(s.value(forKey: "b") == 5 && s.count == 3 && s.format == .xml)
        var first = DomainState()
        #expect(first.finishReload(disk: [:], signature: nil, format: nil, error: nil, diskChanges: [:], reporting: false).publish)
        var replaced = Self.state(base: ["x": 1], changes: [])
        replaced.sequence += 1
        replaced.replaced = replaced.sequence
        let none = replaced.finishReload(disk: disk, signature: nil, format: nil, error: nil, diskChanges: ["a": .init(old: nil, new: 2)], reporting: true)
        #expect(replaced.base == ["x": 1] && none.changes.isEmpty && !none.publish)
    }

    @Test("a domain through random sets, batches, replacements, flushes and another writer's edits reads as the model says")
    func domainModel() async throws {
        // Its flushes block (fsync, file locks): off the test run's cooperative pool.
        try await offThePool { try Self.domainModelBody() }
    }

    static func domainModelBody() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let other = sandbox.makeStore()   // another writer of the same file
        var random = SeededRandom()
        let name = "com.example.model"
        let domain = store.domain(name)
        // The model: the file, this process's unwritten changes, and a replacement not yet written.
        var disk: [LiteralString: PropertyList] = [:]
        var pending: [LiteralString: PropertyList?] = [:]
        var replacement: [LiteralString: PropertyList]? = nil
        func value() -> PropertyList { .integer(.init(Int64(random.next() % 100))) }
        for step in 0..<250 {
            switch random.next() % 10 {
            case 0...3:
                let k = key(&random, pool: 50)
                let v: PropertyList? = random.next() % 4 == 0 ? nil : value()
                domain.set(v, forKey: k)
                pending[LiteralString(k)] = .some(v)
            case 4:
                var batch: [LiteralString: PropertyList?] = [:]
                for _ in 0..<(1 + random.next() % 5) { batch[LiteralString(key(&random, pool: 50))] = random.next() % 4 == 0 ? nil : value() }
                domain.set(batch)
                for (k, v) in batch { pending[k] = .some(v) }
            case 5:
                var entries: [LiteralString: PropertyList] = [:]
                for _ in 0..<(random.next() % 10) { entries[LiteralString(key(&random, pool: 50))] = value() }
                domain.replaceAll(with: entries)
                replacement = entries
                pending = [:]
            case 6, 7:
                // Another writer edits the file under its lock: a key this process is not
                // writing, and not while a replacement is unwritten (this process's flush runs
                // 20 ms after its writes, on its own: whether it comes before or after the edit
                // would decide those, and both are right).
                let k = LiteralString(key(&random, pool: 50))
                guard replacement == nil, pending[k] == nil else { continue }
                let v: PropertyList? = random.next() % 3 == 0 ? nil : value()
                try other.domain(name).update { $0[k] = v }
                disk[k] = v
            default:
                try domain.synchronize()
                var written = replacement ?? disk
                for (k, v) in pending { written[k] = v }
                disk = written
                pending = [:]
                replacement = nil
                #expect(Lookalikes.sameScalars(.dictionary(domain.entries), .dictionary(disk)), "seed \(random.seed), step \(step)")
            }
            // Between flushes: this process's own changes read back whatever the watcher did meanwhile.
            for (k, v) in pending { #expect(domain.value(forKey: k.string) == v, "seed \(random.seed), step \(step): \(k.string)") }
            domain.state.withLock { $0._checkInvariants() }
        }
        try domain.synchronize()
        var written = replacement ?? disk
        for (k, v) in pending { written[k] = v }
        #expect(Lookalikes.sameScalars(.dictionary(domain.entries), .dictionary(written)), "seed \(random.seed)")
        // A fresh reader of the file sees the same.
        #expect(Lookalikes.sameScalars(.dictionary(sandbox.makeStore().domain(name).entries), .dictionary(written)), "seed \(random.seed)")
    }
}
