// The iCloud key-value store (issue 14), in its own process, against a real
// `ubiquity serve` (the release build beside this benchmark) on loopback:
//   swift build -c release && swift build -c release --product ubiquity && swift package benchmark --target UbiquityBenchmarks
// Local reads and writes are compared with swift-corelibs-foundation's
// UserDefaults (Linux has no NSUbiquitousKeyValueStore); propagation and
// commit throughput have no peer on Linux and are stated alone.
import Benchmark
import BenchmarkSupport
import Foundation
import OpenDefaults
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PropertyList

let sandbox = Sandbox.folder(named: "opendefaults-ubiquity-bench")

/// A `ubiquity serve` child process and an account on it.
final class BenchServer: @unchecked Sendable {
    let process = Process()
    let url: String
    let token: String
    let data: String

    init?(tool: String, folder: String) {
        data = folder + "/server"
        let out = folder + "/serve.out"
        FileManager.default.createFile(atPath: out, contents: nil)
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["serve", "--data", data, "--port", "0"]
        guard let handle = FileHandle(forWritingAtPath: out) else { return nil }
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        var line = ""
        for _ in 0..<200 {
            line = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            if line.hasSuffix("\n") { break }
            usleep(50_000)
        }
        url = line.trimmingCharacters(in: .whitespacesAndNewlines)
        let add = Process()
        add.executableURL = URL(fileURLWithPath: tool)
        add.arguments = ["account", "add", "bench", "--data", data]
        let pipe = Pipe()
        add.standardOutput = pipe
        try? add.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        add.waitUntilExit()
        token = text.split(separator: "\n").last.map(String.init) ?? ""
        if url.isEmpty || token.isEmpty { return nil }
    }

    var account: UbiquityAccount { UbiquityAccount(server: url, token: token, name: "bench", identifier: "bench") }

    deinit { process.terminate() }
}

let server = program("ubiquity").flatMap { BenchServer(tool: $0, folder: sandbox) }

/// A "machine": a store with its own folder, syncing with the server.
func machine(_ name: String, store id: String) -> UbiquitousKeyValueStore {
    UbiquitousKeyValueStore(storeIdentifier: id, configuration: .init(
        dataDirectory: sandbox + "/" + name, transport: { HTTPUbiquityTransport(account: $0) },
        account: server?.account, watches: true))
}

let benchmarks: @Sendable () -> Void = {
    let fast = Benchmark.Configuration(metrics: [.wallClock], timeUnits: .nanoseconds, scalingFactor: .kilo, maxDuration: .seconds(3))
    let foundation = UserDefaults(suiteName: "com.bench.ubiquity")!
    for i in 0..<100 { foundation.set(i, forKey: "key\(i)") }
    foundation.set("a string", forKey: "string")

    // Local work: a store syncing with the server (uploads coalesced in the background).
    let local = machine("local", store: "com.bench.local")
    for i in 0..<100 { local.set(Int64(i), forKey: "key\(i)") }
    local.set("a string", forKey: "string")

    Benchmark("kv longLong(forKey:) · UbiquitousKeyValueStore", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(local.longLong(forKey: "key50")) }
    }
    Benchmark("kv integer(forKey:) · Foundation UserDefaults", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(foundation.integer(forKey: "key50")) }
    }
    Benchmark("kv string(forKey:) · UbiquitousKeyValueStore", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(local.string(forKey: "string")) }
    }
    Benchmark("kv string(forKey:) · Foundation UserDefaults", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(foundation.string(forKey: "string")) }
    }
    Benchmark("kv set(Int64) · UbiquitousKeyValueStore", configuration: fast) { b in
        var n: Int64 = 0
        for _ in b.scaledIterations {
            n += 1
            local.set(n, forKey: "key\(n & 63)")
        }
    }
    Benchmark("kv set(Int) · Foundation UserDefaults", configuration: fast) { b in
        var n = 0
        for _ in b.scaledIterations {
            n += 1
            foundation.set(n, forKey: "key\(n & 63)")
        }
    }

    guard server != nil else {
        print("UbiquityBenchmarks: no release `ubiquity` beside the benchmark (swift build -c release --product ubiquity): the server figures are skipped")
        return
    }

    // A's set until B's store reports it (a long poll on B; A's upload coalesced).
    Benchmark("kv propagation A set → B notified (loopback) · UbiquitousKeyValueStore",
              configuration: .init(metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 5, maxDuration: .seconds(10), maxIterations: 300)) { b in
        let id = "com.bench.propagation\(Counter.next())"
        let a = machine("a", store: id), bStore = machine("b", store: id)
        try await a.synchronizeWithServer()
        try await bStore.synchronizeWithServer()
        var changes = bStore.externalChanges().makeAsyncIterator()
        try await Task.sleep(for: .milliseconds(100))
        for _ in b.scaledIterations {
            let n = Int64(Counter.next())
            b.startMeasurement()
            a.set(n, forKey: "k")
            while let change = await changes.next() {
                if change.changedKeys.contains("k"), bStore.longLong(forKey: "k") == n { break }
            }
            b.stopMeasurement()
        }
    }

    // Acknowledged commits of one store: 1,000 per iteration, 32 writers at once.
    Benchmark("kv 1,000 acknowledged commits, one store, 32 writers · ubiquity serve (SQLite)",
              configuration: .init(metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 1, maxDuration: .seconds(20), maxIterations: 10)) { b in
        let transport = HTTPUbiquityTransport(account: server!.account, maximumConnections: 32)
        let id = "com.bench.throughput"
        for _ in b.scaledIterations {
            b.startMeasurement()
            await withTaskGroup(of: Void.self) { group in
                for w in 0..<32 {
                    group.addTask {
                        var base: Int64 = (try? await transport.changes(store: id, after: 0, wait: nil))?
                            .entries.first { $0.key == "w\(w)" }?.revision ?? 0
                        var done = 0
                        while done < 1_000 / 32 + (w < 1_000 % 32 ? 1 : 0) {
                            let value = UbiquityWireValue.encode(.integer(.init(Int64(done))))
                            guard let r = try? await transport.commit(store: id, UbiquityCommitRequest(changes: [
                                UbiquityWireChange(key: "w\(w)", base: base, value: value)])) else { continue }
                            base = r.results[0].entry.revision
                            done += 1
                        }
                    }
                }
            }
            b.stopMeasurement()
        }
    }
}
