// Test helper for the conformance corpus (`../shared/corpora/plist/check.py`):
// `plist-canonical canonical-json FILE` prints the file's value as the
// corpus' canonical JSON, or an error on standard error and exit status 1.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

import PlatformIO

func canonical(_ v: PropertyList, into out: inout String) {
    func quote(_ s: String) -> String {
        var bytes: [UInt8] = []
        JSONEscape.appendQuoted(s, to: &bytes, escapingSlash: false)
        return String(decoding: bytes, as: UTF8.self)
    }
    switch v {
    case .string(let s): out += "{\"string\": \(quote(s))}"
    case .integer(let n): out += "{\"int\": \"\(n)\"}"
    case .real(let d):
        let text = d.isNaN ? "nan" : d.isInfinite ? (d > 0 ? "inf" : "-inf") : "\(d)"
        out += "{\"real\": \"\(text)\"}"
    case .boolean(let b): out += "{\"bool\": \(b)}"
    case .date(let d):
        out += "{\"date\": \(quote(isoDate(d)))}"
    case .data(let d): out += "{\"data\": \"\(d.base64EncodedString())\"}"
    case .uid(let u): out += "{\"uid\": \(u)}"
    case .array(let a):
        out += "{\"array\": ["
        for (k, e) in a.enumerated() {
            if k > 0 { out += ", " }
            canonical(e, into: &out)
        }
        out += "]}"
    case .dictionary(let d):
        out += "{\"dict\": {"
        for (k, key) in d.keys.sorted().enumerated() {
            if k > 0 { out += ", " }
            out += quote(key.string) + ": "
            canonical(d[key]!, into: &out)
        }
        out += "}}"
    }
}

/// ISO 8601 with milliseconds, from the XML writer's whole-second form.
func isoDate(_ d: Date) -> String {
    let whole = d.timeIntervalSinceReferenceDate.rounded(.down)
    let xml = PropertyList.iso8601String(for: d)
    let millis = Int(((d.timeIntervalSinceReferenceDate - whole) * 1000).rounded())
    let base = xml.dropLast()  // drop "Z"
    return millis == 0 ? base + "Z" : base + "." + String(format3(millis)) + "Z"
}
func format3(_ n: Int) -> String { n < 10 ? "00\(n)" : n < 100 ? "0\(n)" : "\(n)" }

let args = CommandLine.arguments
guard args.count == 3, args[1] == "canonical-json" else {
    StandardStream.error.print("usage: plist-canonical canonical-json FILE")
    Environment.exit(2)
}
do {
    let value = try PropertyList(decoding: FileIO.read(args[2]))
    var out = ""
    canonical(value, into: &out)
    print(out)
} catch {
    StandardStream.error.print("\(args[2]): \(error)")
    Environment.exit(1)
}
