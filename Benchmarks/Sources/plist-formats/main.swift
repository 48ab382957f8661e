// Times the library's readers and writers of each format on the benchmarks'
// mixed property list (JSON: its JSON-compatible variant), in one process:
// `plist-formats [ROUNDS] [--read|--write] [FORMAT…]`. Prints the median of
// ROUNDS (default 9) for each, in ms and in MB/s of text read or written.
// A read is timed until the value is returned (letting it go is not timed);
// `--read` or `--write` runs only one of the two, for a profiler.
import Foundation
import MixedDocument
import PropertyList

var arguments = Array(CommandLine.arguments.dropFirst())
let rounds = arguments.first.flatMap { Int($0) } ?? 9
if Int(arguments.first ?? "") != nil { arguments.removeFirst() }
let names: [String: PropertyListFormat] = ["xml": .xml, "binary": .binary, "json": .json, "openstep": .openStep]
let onlyRead = arguments.contains("--read"), onlyWrite = arguments.contains("--write")
arguments.removeAll { $0.hasPrefix("--") }
let chosen = arguments.isEmpty ? ["xml", "binary", "json", "openstep"] : arguments

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

for name in chosen {
    guard let format = names[name] else { print("unknown format \(name)"); exit(2) }
    let document = format == .json ? jsonCompatible(makeDocument()) : makeDocument()
    let bytes = try document.encoded(as: format)
    var reads: [Double] = [], writes: [Double] = []
    for round in 0..<rounds {
        if !onlyWrite {
            var value: PropertyList?
            reads.append(try seconds { value = try PropertyList(decoding: bytes, format: format) })
            precondition(round > 0 || value == document, "\(name): the value read is not the value written")
        }
        if !onlyRead { writes.append(try seconds { _ = try document.encoded(as: format) }) }
    }
    let mb = Double(bytes.count) / 1e6
    let r = reads.isEmpty ? .nan : median(reads), w = writes.isEmpty ? .nan : median(writes)
    print(String(format: "%@ (%.2f MB): read %.1f ms (%.0f MB/s), write %.1f ms (%.0f MB/s)", name, mb, r * 1000, mb / r, w * 1000, mb / w))
}
