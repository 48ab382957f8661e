#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes JSON, compact or indented (two spaces, `"key" : value`, as
/// `plutil -convert json -r` does), keys sorted, `/` escaped as `\/` as
/// Foundation's JSON writer does. Dates, data, UIDs and non-finite reals
/// have no JSON form and are errors that name their key path.
struct JSONWriter: ~Copyable {
    private var out = ByteOutput(capacity: 1 << 16)
    private var trail = KeyPathTrail()
    private let pretty: Bool

    private init(pretty: Bool) { self.pretty = pretty }

    static func write(_ value: PropertyList, pretty: Bool) throws(PropertyListError) -> ByteOutput {
        var w = JSONWriter(pretty: pretty)
        try w.value(value, level: 0)
        if pretty { w.out.append(0x0A) }
        return w.out
    }

    private func invalid(_ what: String) -> PropertyListError {
        PropertyListError(format: .json, location: .keyPath(trail.text), reason: "\(what) cannot be represented in JSON")
    }

    private mutating func newline(_ level: Int) {
        guard pretty else { return }
        out.append(0x0A)
        out.append(spaces: 2 * level)
    }

    private mutating func value(_ v: PropertyList, level: Int) throws(PropertyListError) {
        switch v {
        case .string(let s): JSONEscape.appendQuoted(s, into: &out, escapingSlash: true)
        case .integer(let n):
            if let i = n.int64Value { out.append(decimal: i) } else { out.append(decimal: n.uint64Value!) }
        case .real(let d):
            guard d.isFinite else { throw invalid("a non-finite real (\(d))") }
            out.append(string: d.description)
        case .boolean(let b): out.append(ascii: b ? "true" : "false")
        case .date: throw invalid("a date")
        case .data: throw invalid("data")
        case .uid: throw invalid("a keyed-archive UID")
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (k, e) in a.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                newline(level + 1)
                trail.push(index: k)
                try value(e, level: level + 1)
                trail.pop()
            }
            if !a.isEmpty { newline(level) }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let d):
            out.append(UInt8(ascii: "{"))
            for (k, i) in d.sortedIndices().enumerated() {
                let (key, element) = d[i]
                if k > 0 { out.append(UInt8(ascii: ",")) }
                newline(level + 1)
                JSONEscape.appendQuoted(key.string, into: &out, escapingSlash: true)
                out.append(ascii: pretty ? " : " : ":")
                trail.push(key: key.string)
                try value(element, level: level + 1)
                trail.pop()
            }
            if !d.isEmpty { newline(level) }
            out.append(UInt8(ascii: "}"))
        }
    }
}
