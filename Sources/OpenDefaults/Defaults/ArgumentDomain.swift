package import PropertyList

/// `NSArgumentDomain`: `-Key value` pairs from the command line.
///
/// A value is read as a property list (`(1,2)` an array, `{a=1;}` a
/// dictionary, `<dead beef>` data, `"…"` a quoted string, or an XML plist)
/// and kept as a plain string when it is not one.
///
/// ```swift
/// ArgumentDomain.parse(["app", "-Volume", "11", "-Names", "(a, b)"])
/// // ["Volume": "11", "Names": ["a", "b"]]
/// ```
package enum ArgumentDomain {
    /// The domain's name.
    package static let name = "NSArgumentDomain"

    /// The pairs in `arguments` (the first element, the program, is skipped).
    package static func parse(_ arguments: [String]) -> [LiteralString: PropertyList] {
        var out: [LiteralString: PropertyList] = [:]
        var i = 1
        while i < arguments.count {
            let arg = arguments[i]
            if arg == "--" { break }
            if arg.count > 1, arg.hasPrefix("-"), i + 1 < arguments.count {
                out[String(arg.dropFirst())] = value(arguments[i + 1])
                i += 2
            } else {
                i += 1
            }
        }
        return out
    }

    /// One argument's value.
    package static func value(_ text: String) -> PropertyList {
        let bytes = Array(text.utf8)
        if let parsed = try? PropertyList(decoding: bytes) { return parsed }
        return .string(text)
    }
}
