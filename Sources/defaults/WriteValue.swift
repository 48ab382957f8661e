#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Engine) import OpenDefaults
import PropertyList

/// What `defaults write D K …` asks for.
enum WriteValue {
    case set(PropertyList)
    case arrayAdd([PropertyList])
    case arrayAddUnique([PropertyList])
    case arrayRemove([PropertyList])
    case dictAdd([String: PropertyList])

    /// Parses the value arguments after the key (macOS's grammar).
    static func parse(_ args: inout ArraySlice<String>) -> WriteValue {
        guard let first = args.first else { Messages.usage() }
        let result: WriteValue
        switch first {
        case "-array", "-array-add", "-array-add-unique", "-array-remove":
            args.removeFirst()
            var elements: [PropertyList] = []
            while !args.isEmpty { elements.append(one(&args, nested: true)) }
            switch first {
            case "-array": result = .set(.array(elements))
            case "-array-add": result = .arrayAdd(elements)
            case "-array-add-unique": result = .arrayAddUnique(elements)
            default: result = .arrayRemove(elements)
            }
        case "-dict", "-dict-add":
            args.removeFirst()
            var entries: [String: PropertyList] = [:]
            while let keyArg = args.popFirst() {
                var key = keyArg
                if keyArg == "-string" {
                    guard let k = args.popFirst() else { Messages.usage() }
                    key = k
                } else if typeFlags.contains(keyArg) {
                    Messages.fail("\nDictionary keys must be strings")
                }
                guard !args.isEmpty else { Messages.fail("\nKey \(key) lacks a corresponding value") }
                entries[key] = one(&args, nested: true)
            }
            result = first == "-dict" ? .set(.dictionary(entries)) : .dictAdd(entries)
        default:
            result = .set(one(&args, nested: false))
        }
        if let extra = args.first {
            Messages.fail("\nUnexpected argument \(extra); leaving defaults unchanged.")
        }
        return result
    }

    static let typeFlags: Set<String> = ["-string", "-data", "-int", "-integer", "-float", "-bool", "-boolean", "-date"]
    static let compositeFlags: Set<String> = ["-array", "-array-add", "-dict", "-dict-add", "-array-add-unique", "-array-remove"]

    /// One value: a type flag and its argument, or a property-list literal.
    static func one(_ args: inout ArraySlice<String>, nested: Bool) -> PropertyList {
        guard let arg = args.popFirst() else { Messages.usage() }
        if compositeFlags.contains(arg) {
            Messages.fail("\nCannot nest composite types (arrays and dictionaries); exiting")
        }
        guard typeFlags.contains(arg) else { return literal(arg) }
        guard let text = args.popFirst() else { Messages.usage() }
        switch arg {
        case "-string": return .string(text)
        case "-int", "-integer": return PropertyList(Int64(NumericText.leadingInteger(text)))
        case "-float": return .real(Double(Float(NumericText.leadingDouble(text))))
        case "-bool", "-boolean":
            switch text.lowercased() {
            case "true", "yes": return .boolean(true)
            case "false", "no": return .boolean(false)
            default: Messages.usage()
            }
        case "-date":
            guard let d = PropertyList.date(from: text) else { Messages.usage() }
            return .date(d)
        default:  // -data
            guard let bytes = hexBytes(text) else { Messages.usage() }
            return .data(Data(bytes))
        }
    }

    /// A value without a type flag: a string unless it contains plist syntax.
    static func literal(_ text: String) -> PropertyList {
        let special: Set<Character> = ["\"", "(", ")", "[", "]", "{", "}", "<", ">"]
        guard text.contains(where: { special.contains($0) }) else { return .string(text) }
        guard let v = try? PropertyList(decoding: Array(text.utf8), format: .openStep) else {
            Messages.fail("\nCould not parse: \(text).  Try single-quoting it.")
        }
        return v
    }

    /// Hexadecimal digits (an odd count ends with a lone low nibble); nil for other characters.
    static func hexBytes(_ s: String) -> [UInt8]? {
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
