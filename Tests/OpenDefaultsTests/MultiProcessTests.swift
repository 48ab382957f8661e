import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
import PropertyList

/// Real processes (the `defaults-test-helper` executable) writing the same
/// domains at once, being killed mid-write, and watching each other.
@Suite("Several processes, one domain", .reportsSeeds, .exclusive(.crashes), .serialized, .timeLimit(.minutes(10)))
struct MultiProcessTests {
    @Test("8 processes × 200 distinct keys, 20 rounds: 1,600 of 1,600 every time")
    func concurrentWriters() throws {
        let sandbox = try Sandbox()
        for round in 0..<20 {
            let domain = "com.example.race\(round)"
            let processes = try (0..<8).map { p -> Process in
                let proc = Process()
                proc.executableURL = URL(fileURLWithPath: helperPath)
                proc.arguments = ["write", domain, "p\(p)_", "200"]
                proc.environment = sandbox.environment
                try proc.run()
                return proc
            }
            for p in processes { p.waitUntilExit(); #expect(p.terminationStatus == 0) }
            let keys = try sandbox.fileValue(domain).dictionaryValue?.count
            #expect(keys == 1600, "round \(round)")
        }
    }

    /// Kills a writer of a 40,000-key domain at random moments, half of them
    /// right after it announces a flush; the file must always parse and hold
    /// one whole version: the last one the writer finished, or the one it was
    /// writing. 1,000 kills in CI, 100 otherwise (`OPENDEFAULTS_KILLS`).
    /// Replay with `OPENDEFAULTS_SEED`.
    @Test("kill -9 during writes never leaves a partial or empty file", .timeLimit(.minutes(30)))
    func killedWriters() throws {
        let sandbox = try Sandbox()
        let domain = "com.example.killed"
        let keys = 40_000
        var initial: [LiteralString: PropertyList] = ["version": 0]
        for k in 0..<keys { initial["key\(k)"] = 0 }
        try PropertyList.dictionary(initial).data(as: .binary).write(to: URL(fileURLWithPath: sandbox.path(domain)))
        let kills = ProcessInfo.processInfo.environment["OPENDEFAULTS_KILLS"].flatMap { Int($0) }
            ?? (ProcessInfo.processInfo.environment["CI"] == "true" ? 1000 : 100)
        var random = SeededRandom()
        let seed = random.seed
        var aimed = 0, aimedInsideFlush = 0
        /// The version the file held before this attempt.
        var previous: Int64 = 0
        /// The writers killed while a flush of theirs was under way: only they may leave a temporary file.
        var killedInsideFlush: Set<Int32> = []
        for attempt in 0..<kills {
            let (proc, out) = try startHelper(["announce-versions", domain, "\(keys)"], in: sandbox)
            var seen = Data()
            let aiming = attempt % 2 == 0
            if aiming {
                // Aimed: wait for "W <version>" (a flush is starting), then kill within a few ms.
                while !seen.contains(UInt8(ascii: "W")) {
                    let chunk = out.availableData
                    if chunk.isEmpty { break }
                    seen.append(chunk)
                }
                guard seen.contains(UInt8(ascii: "W")) else {
                    Issue.record("attempt \(attempt) (seed \(seed)): the writer ended before announcing a flush")
                    return
                }
                usleep(UInt32.random(in: 0...3000, using: &random))
            } else {
                usleep(UInt32.random(in: 0...400_000, using: &random))
            }
            kill(proc.processIdentifier, SIGKILL)
            proc.waitUntilExit()
            seen.append(out.readDataToEndOfFile())
            // What the writer said: "W v" when a flush of v started, "v" when it ended.
            var announced: Int64 = 0, finished: Int64 = 0
            for line in String(decoding: seen, as: UTF8.self).split(separator: "\n") {
                if line.hasPrefix("W "), let v = Int64(line.dropFirst(2)) { announced = max(announced, v) }
                else if let v = Int64(line) { finished = max(finished, v) }
            }
            let insideFlush = announced > finished
            if insideFlush { killedInsideFlush.insert(proc.processIdentifier) }
            if aiming {
                aimed += 1
                if insideFlush { aimedInsideFlush += 1 }
            }
            let value = try sandbox.fileValue(domain)
            guard case .dictionary(let d) = value, case .integer(let version)? = d["version"], let v = version.int64Value else {
                Issue.record("attempt \(attempt) (seed \(seed)): the file does not hold a versioned dictionary")
                return
            }
            #expect(d.count == keys + 1, "attempt \(attempt) (seed \(seed))")
            let whole = d.values.allSatisfy { $0 == .integer(version) }
            #expect(whole, "attempt \(attempt) (seed \(seed)): mixed versions")
            // The last finished version, or the one under way (or, at most, the one
            // set after it: a flush the store scheduled itself may start before "W").
            // (A writer starts from the version it finds: before its first flush, the file holds the previous writer's.)
            let lowest = finished > 0 ? finished : previous
            #expect((lowest ... max(announced + 1, lowest)).contains(v),
                    "attempt \(attempt) (seed \(seed)): the file holds version \(v); it held \(previous), the writer had finished \(finished), announced \(announced)")
            previous = v
            if !whole || d.count != keys + 1 { return }
        }
        print("kill -9 during writes: \(kills) kills, \(aimed) aimed, \(aimedInsideFlush) of them inside a flush, \(killedInsideFlush.count) in all (seed \(seed))")
        // Aimed kills that all landed outside a flush would test nothing about torn writes.
        #expect(aimedInsideFlush * 2 >= aimed, "only \(aimedInsideFlush) of \(aimed) aimed kills landed inside a flush (seed \(seed))")
        // A temporary file is left only by a writer killed inside its flush (its pid is in the name).
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.userDirectory).filter { $0.contains(".tmp-") }
        for name in leftovers {
            let pid = name.split(separator: "-").dropFirst().first.flatMap { Int32($0) }
            #expect(pid.map(killedInsideFlush.contains) == true, "\(name) was left by a writer not killed inside a flush (seed \(seed))")
        }
    }

    @Test("another process's write becomes visible and is reported, without synchronize")
    func crossProcessVisibility() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let domain = store.domain("com.example.shared")
        let recorder = ChangeRecorder(store)
        let clock = ContinuousClock()
        let start = clock.now
        let r = try run(helperPath, ["write-sync", "com.example.shared", "name", "Grace"], environment: sandbox.environment)
        #expect(r.status == 0)
        let written = clock.now
        #expect(eventually { domain.value(forKey: "name") == "Grace" })
        let visible = clock.now
        let change = recorder.all.first { $0.changes["name"] != nil }
        #expect(change?.origin == .otherProcess)
        #expect(change?.changes["name"] == .init(old: nil, new: "Grace"))
        print("cross-process visibility: \(visible - written) after the writer exited (\(visible - start) including its start)")
    }

    @Test("two processes writing the same key: the later flush wins, other keys survive")
    func sameKey() throws {
        let sandbox = try Sandbox()
        #expect(try run(helperPath, ["write-sync", "com.example.same", "k", "first"], environment: sandbox.environment).status == 0)
        #expect(try run(helperPath, ["write-sync", "com.example.same", "other", "x"], environment: sandbox.environment).status == 0)
        #expect(try run(helperPath, ["write-sync", "com.example.same", "k", "second"], environment: sandbox.environment).status == 0)
        #expect(try sandbox.fileValue("com.example.same") == ["k": "second", "other": "x"])
    }
}
