// The drop-in for code written for Apple's API (issue 16), in its own
// process: once an OpenUserDefaults exists, didChangeNotification is posted
// for every defaults object, which the plain Defaults benchmarks must not pay.
// OpenUserDefaults against swift-corelibs-foundation's UserDefaults, and
// DefaultsProvider against swift-configuration's InMemoryProvider, same run.
//   swift build -c release && swift build -c release --product defaults && swift package benchmark --target DropInBenchmarks
import Benchmark
import BenchmarkSupport
import Configuration
import Foundation
import OpenDefaults
import OpenDefaultsConfiguration
import OpenDefaultsFoundation
import PropertyList

let sandbox = Sandbox.folder(named: "opendefaults-dropin-bench")

let store = Sandbox.store(in: sandbox)

let benchmarks: @Sendable () -> Void = {
    let fast = Benchmark.Configuration(metrics: [.wallClock], timeUnits: .nanoseconds, scalingFactor: .kilo, maxDuration: .seconds(3))
    let defaults = Defaults(domainName: "com.bench.dropin", store: store, arguments: ["bench"])
    var values: [LiteralString: PropertyList] = [:]
    for i in 0..<1000 { values["key\(i)"] = PropertyList(i) }
    defaults.setPersistentDomainValues(values, forName: "com.bench.dropin")
    _ = defaults.synchronize()
    let foundation = UserDefaults(suiteName: "com.bench.dropin")!

    //
    // OpenUserDefaults is a Foundation.UserDefaults: code typed `UserDefaults`
    // calls it through Foundation's class, against corelibs' own class.
    let legacy: UserDefaults = OpenUserDefaults(defaults: defaults)
    Benchmark("UserDefaults object(forKey:) · OpenUserDefaults", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(legacy.object(forKey: "key500")) }
    }
    Benchmark("UserDefaults object(forKey:) · Foundation", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(foundation.object(forKey: "key500")) }
    }
    Benchmark("UserDefaults integer(forKey:) · OpenUserDefaults", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(legacy.integer(forKey: "key500")) }
    }
    Benchmark("UserDefaults integer(forKey:) · Foundation", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(foundation.integer(forKey: "key500")) }
    }
    Benchmark("UserDefaults bool(forKey:) · OpenUserDefaults", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(legacy.bool(forKey: "key500")) }
    }
    Benchmark("UserDefaults string(forKey:) · OpenUserDefaults", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(legacy.string(forKey: "key500")) }
    }
    Benchmark("UserDefaults string(forKey:) · Foundation", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(foundation.string(forKey: "key500")) }
    }
    Benchmark("UserDefaults double(forKey:) · OpenUserDefaults", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(legacy.double(forKey: "key500")) }
    }
    Benchmark("UserDefaults double(forKey:) · Foundation", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(foundation.double(forKey: "key500")) }
    }
    Benchmark("UserDefaults set(Int) · OpenUserDefaults", configuration: fast) { b in
        for _ in b.scaledIterations { legacy.set(Counter.next(), forKey: "counter") }
    }
    Benchmark("UserDefaults set(Int) · Foundation", configuration: .init(metrics: [.wallClock], timeUnits: .nanoseconds, maxDuration: .seconds(3))) { b in
        for _ in b.scaledIterations { foundation.set(Counter.next(), forKey: "counter") }
    }
    // With an observer of didChangeNotification (issue 38: posted once per change, synchronously,
    // as Foundation posts it; before, a burst was coalesced into 20 ms windows).
    Benchmark("UserDefaults set(Int) observed · OpenUserDefaults", configuration: fast) { b in
        let seen = ObservedPosts()
        let token = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: legacy, queue: nil) { _ in seen.count += 1 }
        for _ in b.scaledIterations { legacy.set(Counter.next(), forKey: "counter") }
        NotificationCenter.default.removeObserver(token)
        blackHole(seen.count)
    }
    Benchmark("UserDefaults set(Int) observed · Foundation", configuration: .init(metrics: [.wallClock], timeUnits: .nanoseconds, maxDuration: .seconds(3))) { b in
        let seen = ObservedPosts()
        let token = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: foundation, queue: nil) { _ in seen.count += 1 }
        for _ in b.scaledIterations { foundation.set(Counter.next(), forKey: "counter") }
        NotificationCenter.default.removeObserver(token)
        blackHole(seen.count)
    }

    // swift-configuration: DefaultsProvider against the library's own
    // InMemoryProvider holding the same 1,000 values.
    let provider = DefaultsProvider(defaults: defaults)
    var inMemoryValues: [AbsoluteConfigKey: ConfigValue] = [:]
    for i in 0..<1000 { inMemoryValues[AbsoluteConfigKey(["key\(i)"])] = ConfigValue(.int(i), isSecret: false) }
    let inMemory = InMemoryProvider(values: inMemoryValues)
    let portKey = AbsoluteConfigKey(["key500"])
    Benchmark("config value(forKey:) int · DefaultsProvider", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(try provider.value(forKey: portKey, type: .int)) }
    }
    Benchmark("config value(forKey:) int · InMemoryProvider", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(try inMemory.value(forKey: portKey, type: .int)) }
    }
    defaults.set(["port": 8080, "host": "localhost"] as [String: Any], forKey: "http")
    let nestedKey = AbsoluteConfigKey(["http", "port"])
    Benchmark("config value(forKey:) nested int · DefaultsProvider", configuration: fast) { b in
        for _ in b.scaledIterations { blackHole(try provider.value(forKey: nestedKey, type: .int)) }
    }
    Benchmark("config snapshot(), 1,000 keys · DefaultsProvider", configuration: .init(metrics: [.wallClock], timeUnits: .nanoseconds, maxDuration: .seconds(3))) { b in
        for _ in b.scaledIterations { blackHole(provider.snapshot()) }
    }
    Benchmark("config snapshot(), 1,000 keys · InMemoryProvider", configuration: .init(metrics: [.wallClock], timeUnits: .nanoseconds, maxDuration: .seconds(3))) { b in
        for _ in b.scaledIterations { blackHole(inMemory.snapshot()) }
    }
    // Another process's `defaults write` (the installed-style release tool)
    // until DefaultsProvider.watchValue yields it; the process start is included.
    // Foundation on Linux has no peer: corelibs never sees another process's write.
    if let tool = program("defaults") {
        Benchmark("config watch latency, another process's `defaults write` · DefaultsProvider",
                  configuration: .init(metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 2, maxDuration: .seconds(10), maxIterations: 200)) { b in
            let watched = Defaults(domainName: "com.bench.watch", store: store, arguments: ["bench"])
            let watchProvider = DefaultsProvider(defaults: watched)
            try await watchProvider.watchValue(forKey: AbsoluteConfigKey(["level"]), type: .int) { updates in
                var iterator = updates.makeAsyncIterator()
                _ = try await iterator.next()
                for _ in b.scaledIterations {
                    let n = Counter.next()
                    b.startMeasurement()
                    spawnAndWait(tool, ["write", "com.bench.watch", "level", "-int", String(n)])
                    while let update = try await iterator.next(), try update.get().value?.content != .int(n) {}
                    b.stopMeasurement()
                }
            }
        }
    }
}

/// Counts the posts an observer saw (the benchmark's observer does no other work).
final class ObservedPosts: @unchecked Sendable { var count = 0 }
