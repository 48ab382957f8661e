import PropertyList

/// The `plutil -p` form: `"key" => value`, two spaces per level, array
/// elements numbered, keys sorted, booleans as `true`/`false`, data as
/// `{length = N, bytes = 0x…}`, dates as `2024-01-02 03:04:05 +0000`.
enum HumanReadable {
    static func render(_ value: PropertyList) -> String {
        var out = ""
        write(value, level: 0, into: &out)
        out += "\n"
        return out
    }

    private static func write(_ v: PropertyList, level: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: level)
        switch v {
        case .string(let s): out += "\"" + s + "\""
        case .integer(let n): out += n.description
        case .real(let d): out += PropertyList.real(d).description
        case .boolean(let b): out += b ? "true" : "false"
        case .date(let d): out += PropertyList.descriptionString(for: d)
        case .data: out += v.description
        case .uid(let u): out += "<CFKeyedArchiverUID>{value = \(u)}"
        case .array(let a):
            out += "[\n"
            for (k, e) in a.enumerated() {
                out += pad + "  \(k) => "
                write(e, level: level + 1, into: &out)
                out += "\n"
            }
            out += pad + "]"
        case .dictionary(let d):
            out += "{\n"
            for key in d.keys.sorted() {
                out += pad + "  \"" + key.string + "\" => "
                write(d[key]!, level: level + 1, into: &out)
                out += "\n"
            }
            out += pad + "}"
        }
    }
}
