// A durable `set` in a loop, for profiling (`perf record`): the same key and
// an increasing integer, N times (default 5,000,000), in a sandboxed store;
// prints the mean time per set. With `--ratio`, rounds of sets alternate
// with rounds of the floor (the same key put in a `Mutex<[String: Any]>`)
// and the medians and their ratio are printed: the machine's speed changes
// from one run to the next, so only a same-run ratio means anything.
import BenchmarkSupport
import Foundation
@_spi(Engine) import OpenDefaults
import PropertyList
import Synchronization

let arguments = CommandLine.arguments.dropFirst()
let ratio = arguments.contains("--ratio")
let n = arguments.compactMap { Int($0) }.first ?? 5_000_000
let store = Sandbox.store(in: Sandbox.folder(named: "opendefaults-set-loop"))
// As in DefaultsBenchmarks: a 1,000-key domain, a registered default.
let domain = store.domain("com.bench.loop")
domain.set(Dictionary(uniqueKeysWithValues: (0..<1000).map { (LiteralString("key\($0)"), Optional(PropertyList($0))) }))
try domain.synchronize()
let defaults = Defaults(domainName: "com.bench.loop", store: store, arguments: ["bench"])
defaults.register(["Registered": 1])
defaults.set(0, forKey: "counter")

func perSet(_ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1e9 / Double(n) + Double(elapsed.components.attoseconds) / 1e9 / Double(n)
}

if !ratio {
    let ns = perSet { for i in 0..<n { defaults.set(i, forKey: "counter") } }
    print("\(n) sets: \(String(format: "%.1f", ns)) ns each")
} else {
    interleaved(defaults)
}

/// The floor and the set in one function, with the floor's table a local
/// (as `DefaultsBenchmarks` has it): a top-level variable of `main.swift` is
/// a global, reached through its accessor, which made the floor slower.
func interleaved(_ defaults: Defaults) {
    let locked = Mutex<[String: Any]>(Dictionary(uniqueKeysWithValues: (0..<1000).map { ("key\($0)", $0 as Any) }))
    var sets: [Double] = [], floor: [Double] = []
    for _ in 0..<9 {
        sets.append(perSet { for i in 0..<n { defaults.set(i, forKey: "counter") } })
        floor.append(perSet { for i in 0..<n { locked.withLock { $0["counter"] = i } } })
    }
    let median = { (a: [Double]) in a.sorted()[a.count / 2] }
    print(String(format: "set %.1f ns, locked insert %.1f ns (medians of 9 interleaved rounds of %d): %.2fx",
                 median(sets), median(floor), n, median(sets) / median(floor)))
}
