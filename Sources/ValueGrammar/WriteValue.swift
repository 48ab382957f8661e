#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Engine) import OpenDefaults
import PropertyList

/// Why a `defaults write` value could not be parsed.
package enum WriteValueError: Error, Equatable {
    /// The arguments do not fit the grammar at all (macOS prints the usage text).
    case usage
    /// A specific complaint, worded as macOS `defaults` words it (it begins with a newline).
    case message(String)

    /// The complaint without macOS's leading newline, for tools that print it themselves.
    package var text: String {
        switch self {
        case .usage: "the value does not follow the grammar: -string S, -int N, -float R, -bool B, -date D, -data HEX, -array V…, -dict K V…, or a property-list text"
        case .message(let m): m.hasPrefix("\n") ? String(m.dropFirst()) : m
        }
    }
}

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
        guard let first = args.first else { throw .usage }
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
                    guard let k = args.popFirst() else { throw .usage }
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
        guard let arg = args.popFirst() else { throw .usage }
        if compositeFlags.contains(arg) {
            throw .message("\nCannot nest composite types (arrays and dictionaries); exiting")
        }
        guard typeFlags.contains(arg) else { return try literal(arg) }
        guard let text = args.popFirst() else { throw .usage }
        switch arg {
        case "-string": return .string(text)
        case "-int", "-integer": return PropertyList(Int64(NumericText.leadingInteger(text)))
        case "-float": return .real(Double(Float(NumericText.leadingDouble(text))))
        case "-bool", "-boolean":
            switch text.lowercased() {
            case "true", "yes": return .boolean(true)
            case "false", "no": return .boolean(false)
            default: throw .usage
            }
        case "-date":
            guard let d = PropertyList.date(from: text) else { throw .usage }
            return .date(d)
        default:  // -data
            guard let bytes = hexBytes(text) else { throw .usage }
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
