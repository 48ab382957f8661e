import Foundation
import Testing
@_spi(Engine) @testable import OpenDefaults
import PropertyList

/// Real processes (the `defaults-test-helper` executable) writing the same
/// domains at once, being killed mid-write, and watching each other.
@Suite("Several processes, one domain", .serialized)
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
    /// one whole version. 1,000 kills in CI, 100 otherwise.
    @Test("kill -9 during writes never leaves a partial or empty file")
    func killedWriters() throws {
        let sandbox = try Sandbox()
        let domain = "com.example.killed"
        let keys = 40_000
        var initial: [LiteralString: PropertyList] = ["version": 0]
        for k in 0..<keys { initial["key\(k)"] = 0 }
        try PropertyList.dictionary(initial).data(as: .binary).write(to: URL(fileURLWithPath: sandbox.path(domain)))
        let kills = ProcessInfo.processInfo.environment["CI"] == "true" ? 1000 : 100
        var rng = SystemRandomNumberGenerator()
        var aimed = 0
        for attempt in 0..<kills {
            let (proc, out) = try startHelper(["announce-versions", domain, "\(keys)"], in: sandbox)
            if attempt % 2 == 0 {
                // Aimed: wait for "W <version>" (a flush is starting), then kill within a few ms.
                let handle = out
                var seen = Data()
                while !seen.contains(UInt8(ascii: "W")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    seen.append(chunk)
                }
                usleep(UInt32.random(in: 0...3000, using: &rng))
                aimed += 1
            } else {
                usleep(UInt32.random(in: 0...400_000, using: &rng))
            }
            kill(proc.processIdentifier, SIGKILL)
            proc.waitUntilExit()
            let value = try sandbox.fileValue(domain)
            guard case .dictionary(let d) = value, case .integer(let version)? = d["version"] else {
                Issue.record("attempt \(attempt): the file does not hold a versioned dictionary")
                return
            }
            #expect(d.count == keys + 1, "attempt \(attempt)")
            let whole = d.values.allSatisfy { $0 == .integer(version) }
            #expect(whole, "attempt \(attempt): mixed versions")
            if !whole || d.count != keys + 1 { return }
        }
        #expect(aimed == kills / 2)
        // No temporary files are left to grow without bound beyond those of killed writers.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.userDirectory).filter { $0.contains(".tmp-") }
        #expect(leftovers.count <= kills)
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
