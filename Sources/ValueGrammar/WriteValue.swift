#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Engine) import OpenDefaults
package import PropertyList
import Spelling

/// What `defaults write D K …` asks for: the value grammar of macOS `defaults`,
/// shared by `defaults` and `ubiquity set`.
package enum WriteValue: Equatable {
    /// Replace the value.
    case set(PropertyList)
    /// `-array-add`: append.
    case arrayAdd([PropertyList])
    /// `-array-add-unique`: append what is missing.
    case arrayAddUnique([PropertyList])
    /// `-array-remove`: remove equal elements.
    case arrayRemove([PropertyList])
    /// `-dict-add`: merge entries.
    case dictAdd([LiteralString: PropertyList])

    /// Parses the value arguments after the key (macOS's grammar).
    package static func parse(_ args: inout ArraySlice<String>) throws(WriteValueError) -> WriteValue {
        guard let first = args.first else {
            throw .usage("a value is needed: -string S, -int N, -float R, -bool B, -date D, -data HEX, -array V…, -dict K V…, or a property-list text")
        }
        let result: WriteValue
        switch first {
        case "-array", "-array-add", "-array-add-unique", "-array-remove":
            args.removeFirst()
            var elements: [PropertyList] = []
            while !args.isEmpty { elements.append(try one(&args, nested: true)) }
            switch first {
            case "-array": result = .set(.array(elements))
            case "-array-add": result = .arrayAdd(elements)
            case "-array-add-unique": result = .arrayAddUnique(elements)
            default: result = .arrayRemove(elements)
            }
        case "-dict", "-dict-add":
            args.removeFirst()
            var entries: [LiteralString: PropertyList] = [:]
            while let keyArg = args.popFirst() {
                var key = keyArg
                if keyArg == "-string" {
                    guard let k = args.popFirst() else { throw .usage("-string needs a key after it in \(first)") }
                    key = k
                } else if typeFlags.contains(keyArg) {
                    throw .message("\nDictionary keys must be strings")
                }
                guard !args.isEmpty else { throw .message("\nKey \(key) lacks a corresponding value") }
                entries[key] = try one(&args, nested: true)
            }
            result = first == "-dict" ? .set(.dictionary(entries)) : .dictAdd(entries)
        default:
            result = .set(try one(&args, nested: false))
        }
        if let extra = args.first {
            throw .message("\nUnexpected argument \(extra); leaving defaults unchanged.")
        }
        return result
    }

    package static let typeFlags: Set<String> = ["-string", "-data", "-int", "-integer", "-float", "-bool", "-boolean", "-date"]
    package static let compositeFlags: Set<String> = ["-array", "-array-add", "-dict", "-dict-add", "-array-add-unique", "-array-remove"]

    /// One value: a type flag and its argument, or a property-list literal.
    static func one(_ args: inout ArraySlice<String>, nested: Bool) throws(WriteValueError) -> PropertyList {
        guard let arg = args.popFirst() else { throw .usage("a value is needed") }
        if compositeFlags.contains(arg) {
            throw .message("\nCannot nest composite types (arrays and dictionaries); exiting")
        }
        guard typeFlags.contains(arg) else {
            // A mistyped flag (`-integr 11`) is named, not stored as the text "-integr" with "11" left over.
            if arg.hasPrefix("-"), arg.dropFirst().first?.isLetter == true,
               let meant = ClosestWord.suggestion(for: arg, among: typeFlags.sorted() + compositeFlags.sorted(), ignoringCase: true, prefixes: false) {
                throw .usage("unknown type flag \(arg) (did you mean \(meant)?); to write the text \(arg), write -string \(arg)")
            }
            return try literal(arg)
        }
        guard let text = args.popFirst() else { throw .usage("\(arg) needs a value after it") }
        // Values are never guessed (macOS's intValue reads "five" as 0 and clamps an
        // overflow): a value that is not what its flag says is refused.
        switch arg {
        case "-string": return .string(text)
        case "-int", "-integer":
            if let n = Int64(text.trimmingSpaces) { return PropertyList(n) }
            let digits = text.trimmingSpaces.drop { $0 == "-" || $0 == "+" }
            if !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) {
                throw .usage("\(arg) expects an integer from \(Int64.min) to \(Int64.max), got \"\(text)\"")
            }
            throw .usage("\(arg) expects an integer, got \"\(text)\"")
        case "-float":
            guard let r = Double(text.trimmingSpaces), !text.trimmingSpaces.isEmpty else {
                throw .usage("-float expects a number such as 1.5 or -2e3, got \"\(text)\"")
            }
            // Stored as a float (as macOS does): infinity and NaN are refused, as an
            // integer overflow is (no property-list text format but XML can say them,
            // and a later JSON export would fail).
            guard r.isFinite, Float(r).isFinite else {
                throw .usage("-float expects a finite number from \(-Float.greatestFiniteMagnitude) to \(Float.greatestFiniteMagnitude), got \"\(text)\"")
            }
            return .real(Double(Float(r)))
        case "-bool", "-boolean":
            switch text.lowercased() {
            case "true", "yes", "1": return .boolean(true)
            case "false", "no", "0": return .boolean(false)
            default: throw .usage("\(arg) expects YES/NO/true/false/1/0, got \"\(text)\"")
            }
        case "-date":
            guard let d = PropertyList.date(from: text) else {
                throw .usage("-date expects a date such as 2024-01-02T03:04:05Z, got \"\(text)\"")
            }
            return .date(d)
        default:  // -data
            guard let bytes = hexBytes(text) else { throw .usage("-data expects hexadecimal digits, got \"\(text)\"") }
            return .data(Data(bytes))
        }
    }

    /// A value without a type flag: a string unless it contains plist syntax.
    static func literal(_ text: String) throws(WriteValueError) -> PropertyList {
        let special: Set<Character> = ["\"", "(", ")", "[", "]", "{", "}", "<", ">"]
        guard text.contains(where: { special.contains($0) }) else { return .string(text) }
        guard let v = try? PropertyList(decoding: Array(text.utf8), format: .openStep) else {
            throw .message("\nCould not parse: \(text).  Try single-quoting it.")
        }
        return v
    }

    /// Hexadecimal digits (an odd count ends with a lone low nibble); nil for other characters.
    package static func hexBytes(_ s: String) -> [UInt8]? {
        var out: [UInt8] = []
        var pending: UInt8? = nil
        for c in s.utf8 {
            let v: UInt8
            switch c {
            case 0x30...0x39: v = c - 0x30
            case 0x41...0x46: v = c - 0x41 + 10
            case 0x61...0x66: v = c - 0x61 + 10
            default: return nil
            }
            if let hi = pending { out.append(hi << 4 | v); pending = nil } else { pending = v }
        }
        if let lone = pending { out.append(lone) }
        return out
    }
}

extension String {
    /// Without spaces and tabs at either end.
    var trimmingSpaces: Substring {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
