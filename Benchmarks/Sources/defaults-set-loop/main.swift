// A durable `set` in a loop, for profiling (`perf record`): the same key and
// an increasing integer, N times (default 5,000,000), in a sandboxed store;
// prints the mean time per set.
import BenchmarkSupport
import Foundation
import OpenDefaults

let n = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 5_000_000 : 5_000_000
let store = Sandbox.store(in: Sandbox.folder(named: "opendefaults-set-loop"))
let defaults = Defaults(domainName: "com.bench.loop", store: store, arguments: ["bench"])
defaults.set(0, forKey: "counter")
let start = ContinuousClock.now
for i in 0..<n { defaults.set(i, forKey: "counter") }
let elapsed = ContinuousClock.now - start
print("\(n) sets: \(elapsed / n) each")
