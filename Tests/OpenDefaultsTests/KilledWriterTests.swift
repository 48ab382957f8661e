import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
import PropertyList

/// A writer killed with `kill -9` at random moments, many times over. Its own suite for its own
/// time limit: 1,000 kills take about 13 minutes on an idle two-core machine (`.ci/run`'s stage runs 300).
@Suite("Killed writers", .offThePool, .reportsSeeds, .exclusive(.crashes), .serialized, .timeLimit(.minutes(40)))
struct KilledWriterTests {
    /// Kills a writer of a 40,000-key domain at random moments, half of them
    /// right after it announces a flush; the file must always parse and hold
    /// one whole version: the last one the writer finished, or the one it was
    /// writing. 100 kills, or `OPENDEFAULTS_KILLS` (`.ci/run` runs 300 on an idle machine).
    /// Replay with `OPENDEFAULTS_SEED`.
    @Test("kill -9 during writes never leaves a partial or empty file")
    func killedWriters() throws {
        let sandbox = try Sandbox()
        let domain = "com.example.killed"
        let keys = 40_000
        var initial: [LiteralString: PropertyList] = ["version": 0]
        for k in 0..<keys { initial["key\(k)"] = 0 }
        try PropertyList.dictionary(initial).data(as: .binary).write(to: URL(fileURLWithPath: sandbox.path(domain)))
        let kills = ProcessInfo.processInfo.environment["OPENDEFAULTS_KILLS"].flatMap { Int($0) } ?? 100
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
}
