import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
import PropertyList

/// Real processes (the `defaults-test-helper` executable) writing the same
/// domains at once, being killed mid-write, and watching each other.
@Suite("Several processes, one domain", .offThePool, .reportsSeeds, .exclusive(.crashes), .serialized, .timeLimit(.minutes(10)))
struct MultiProcessTests {
    @Test("8 processes × 200 distinct keys, 20 rounds: 1,600 of 1,600 every time")
    func concurrentWriters() throws {
        let sandbox = try Sandbox()
        for round in 0..<20 {
            let domain = "com.example.race\(round)"
            let processes = try (0..<8).map { p in
                try startProcess(helperPath, ["write", domain, "p\(p)_", "200"], environment: sandbox.environment)
            }
            for p in processes { p.waitUntilExit(); #expect(p.terminationStatus == 0) }
            let keys = try sandbox.fileValue(domain).dictionaryValue?.count
            #expect(keys == 1600, "round \(round)")
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
