#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import PropertyList

/// A property-list value written as GVariant text of a declared type, as a
/// dconf keyfile holds it (`dconf update` parses each value with no schema
/// at hand, so the text names its type: `@u 5`, `@as ['a']`).
///
/// Conversions: a boolean to `b`; an integer to any integer type it fits;
/// a real or an integer to `d`; a string to `s`, `o` or `g`; an array to `aT`
/// or a tuple of its length; a dictionary with string keys to `a{sV}`; any
/// value but a date or data to `v` (its own type: `s`, `x`, `d`, `b`, `av`,
/// `a{sv}`). Dates, data and maybe types have no conversion.
///
/// ```swift
/// try GVariantText.text(of: .string("file:///a.png"), as: .basic("s"))   // "@s 'file:///a.png'"
/// ```
package enum GVariantText {
    /// Why a value has no text of the type: what was expected.
    package struct Mismatch: Error, Sendable {
        package var expected: String
    }

    /// The annotated text of `value` as `type`.
    package static func text(of value: PropertyList, as type: GVariantType) throws(Mismatch) -> String {
        "@" + type.description + " " + (try body(of: value, as: type))
    }

    private static func body(of value: PropertyList, as type: GVariantType) throws(Mismatch) -> String {
        switch type {
        case .basic(let c):
            return try basic(value, c)
        case .variant:
            return "<" + (try variant(value)) + ">"
        case .maybe:
            throw Mismatch(expected: "a value of type \(type) (maybe types cannot be set from a profile)")
        case .array(let element):
            guard case .array(let items) = value else { throw Mismatch(expected: "an array (\(type))") }
            var parts: [String] = []
            for item in items {
                do { parts.append(try body(of: item, as: element)) } catch {
                    throw Mismatch(expected: "an array (\(type)) of \(error.expected)")
                }
            }
            return "[" + parts.joined(separator: ", ") + "]"
        case .dictionary(let keyType, let valueType):
            guard case .dictionary(let entries) = value else { throw Mismatch(expected: "a dictionary (\(type))") }
            guard case .basic(let k) = keyType, k == "s" || k == "o" || k == "g" else {
                throw Mismatch(expected: "a dictionary (\(type)); only string keys can be given in a profile")
            }
            var parts: [String] = []
            for key in entries.keys.sorted(by: { $0.string.unicodeScalars.lexicographicallyPrecedes($1.string.unicodeScalars) }) {
                let entry: String
                do { entry = try body(of: entries[key]!, as: valueType) } catch {
                    throw Mismatch(expected: "a dictionary (\(type)) whose values are \(error.expected)")
                }
                parts.append(quoted(key.string) + ": " + entry)
            }
            return "{" + parts.joined(separator: ", ") + "}"
        case .tuple(let members):
            guard case .array(let items) = value, items.count == members.count else {
                throw Mismatch(expected: "an array of \(members.count) values (the tuple \(type))")
            }
            var parts: [String] = []
            for (item, member) in zip(items, members) { parts.append(try body(of: item, as: member)) }
            return "(" + parts.joined(separator: ", ") + (members.count == 1 ? ",)" : ")")
        }
    }

    private static func basic(_ value: PropertyList, _ c: Character) throws(Mismatch) -> String {
        switch c {
        case "b":
            guard case .boolean(let b) = value else { throw Mismatch(expected: "a boolean (b)") }
            return b ? "true" : "false"
        case "d":
            switch value {
            case .real(let d) where d.isFinite: return realText(d)
            case .integer(let n): return realText(n.doubleValue)
            default: throw Mismatch(expected: "a finite number (d)")
            }
        case "s", "o", "g":
            guard case .string(let s) = value else { throw Mismatch(expected: "a string (\(c))") }
            if c == "o", !isObjectPath(s) { throw Mismatch(expected: "an object path (o), such as /org/example") }
            return quoted(s)
        default:
            let bounds: (Int64, UInt64) = switch c {
            case "y": (0, 255)
            case "n": (-32768, 32767)
            case "q": (0, 65535)
            case "i", "h": (Int64(Int32.min), UInt64(Int32.max))
            case "u": (0, UInt64(UInt32.max))
            case "x": (Int64.min, UInt64(Int64.max))
            default: (0, UInt64.max)   // t
            }
            guard case .integer(let n) = value else { throw Mismatch(expected: "an integer (\(c), \(bounds.0)…\(bounds.1))") }
            if n.isNegative {
                guard let v = n.int64Value, v >= bounds.0 else { throw Mismatch(expected: "an integer (\(c), \(bounds.0)…\(bounds.1))") }
                return String(v)
            }
            guard let v = n.uint64Value, v <= bounds.1 else { throw Mismatch(expected: "an integer (\(c), \(bounds.0)…\(bounds.1))") }
            return String(v)
        }
    }

    /// A value of type `v`: its own type, annotated.
    private static func variant(_ value: PropertyList) throws(Mismatch) -> String {
        let type: GVariantType
        switch value {
        case .boolean: type = .basic("b")
        case .integer(let n): type = n.int64Value != nil ? .basic("x") : .basic("t")
        case .real(let d) where d.isFinite: type = .basic("d")
        case .string: type = .basic("s")
        case .array: type = .array(.variant)
        case .dictionary: type = .dictionary(.basic("s"), .variant)
        default: throw Mismatch(expected: "a value with a GVariant type (not a date, data or a non-finite number)")
        }
        return try text(of: value, as: type)
    }

    private static func realText(_ d: Double) -> String {
        var t = d.description
        if !t.contains(".") && !t.contains("e") && !t.contains("n") { t += ".0" }
        return t
    }

    private static func isObjectPath(_ s: String) -> Bool {
        if s == "/" { return true }
        guard s.hasPrefix("/"), !s.hasSuffix("/") else { return false }
        return s.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy { ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "_" }
        }
    }

    /// A GVariant string literal: single quotes; backslash, quote and every
    /// control character escaped, so that the keyfile line stays one line.
    package static func quoted(_ s: String) -> String {
        var out = "'"
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (scalar.value >= 0x80 && scalar.value < 0xA0)
                    || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "'"
    }
}
