import PropertyList

/// A typed value given on the command line: `-integer 5`, `-bool YES`,
/// `-xml '<string>x</string>'`, `-array`…
struct ValueArgument: Equatable {
    let value: PropertyList

    init(flag: String, next: () throws(Invocation.UsageError) -> String) throws(Invocation.UsageError) {
        func bad(_ text: String, _ expected: String) -> Invocation.UsageError {
            .init(description: "invalid value '\(text)' for \(flag): expected \(expected)")
        }
        switch flag {
        case "-bool":
            let t = try next()
            switch t.lowercased() {
            case "yes", "true", "1": value = .boolean(true)
            case "no", "false", "0": value = .boolean(false)
            default: throw bad(t, "YES, NO, true, false, 1 or 0")
            }
        case "-integer":
            let t = try next()
            guard let n = Int64(t).map({ PropertyList($0) }) ?? UInt64(t).map({ PropertyList($0) }) else {
                throw bad(t, "a decimal integer")
            }
            value = n
        case "-float":
            let t = try next()
            guard let d = Double(t) else { throw bad(t, "a number") }
            value = .real(d)
        case "-string": value = .string(try next())
        case "-date":
            let t = try next()
            guard let d = PropertyList.date(from: t) else { throw bad(t, "a date such as 2024-01-02T03:04:05Z") }
            value = .date(d)
        case "-data":
            let t = try next()
            guard let d = Base64Text.decode(t) else { throw bad(t, "base64 text") }
            value = .data(d)
        case "-xml", "-json":
            let t = try next()
            do {
                value = try PropertyList(decoding: Array(t.utf8), format: flag == "-xml" ? .xml : .json)
            } catch {
                throw .init(description: "invalid value for \(flag): \(error)")
            }
        case "-array": value = .array([])
        case "-dictionary": value = .dictionary([:])
        default:
            throw .init(description: "unknown type '\(flag)' (expected -bool, -integer, -float, -string, -date, -data, -xml, -json, -array or -dictionary)")
        }
    }
}
