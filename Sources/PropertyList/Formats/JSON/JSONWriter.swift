/// Writes JSON, compact or indented (two spaces, `"key" : value`, as
/// `plutil -convert json -r` does), keys sorted, `/` escaped as `\/` as
/// Foundation's JSON writer does. Dates, data, UIDs and non-finite reals
/// have no JSON form and are errors that name their key path.
struct JSONWriter {
    private var out: [UInt8] = []
    private let pretty: Bool

    private init(pretty: Bool) { self.pretty = pretty }

    static func write(_ value: PropertyList, pretty: Bool) throws(PropertyListError) -> [UInt8] {
        var w = JSONWriter(pretty: pretty)
        try w.value(value, level: 0, path: "")
        if pretty { w.out.append(0x0A) }
        return w.out
    }

    private func invalid(_ what: String, _ path: String) -> PropertyListError {
        PropertyListError(format: .json, location: .keyPath(path), reason: "\(what) cannot be represented in JSON")
    }

    private mutating func newline(_ level: Int) {
        guard pretty else { return }
        out.append(0x0A)
        out.append(spaces: 2 * level)
    }

    private mutating func value(_ v: PropertyList, level: Int, path: String) throws(PropertyListError) {
        switch v {
        case .string(let s): string(s)
        case .integer(let n): out.append(string: n.description)
        case .real(let d):
            guard d.isFinite else { throw invalid("a non-finite real (\(d))", path) }
            out.append(string: "\(d)")
        case .boolean(let b): out.append(ascii: b ? "true" : "false")
        case .date: throw invalid("a date", path)
        case .data: throw invalid("data", path)
        case .uid: throw invalid("a keyed-archive UID", path)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (k, e) in a.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                newline(level + 1)
                try value(e, level: level + 1, path: path.isEmpty ? "\(k)" : "\(path).\(k)")
            }
            if !a.isEmpty { newline(level) }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let d):
            out.append(UInt8(ascii: "{"))
            for (k, i) in d.sortedIndices().enumerated() {
                let (key, element) = d[i]
                if k > 0 { out.append(UInt8(ascii: ",")) }
                newline(level + 1)
                string(key.string)
                out.append(ascii: pretty ? " : " : ":")
                try value(element, level: level + 1, path: path.isEmpty ? key.string : "\(path).\(key)")
            }
            if !d.isEmpty { newline(level) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private mutating func string(_ s: String) {
        JSONEscape.appendQuoted(s, to: &out, escapingSlash: true)
    }
}
