#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes the description form that macOS `defaults read` prints
/// (Foundation's `-description` of property-list objects).
///
/// Dictionaries as `{ key = value; }` with keys sorted, arrays as `( a, b )`,
/// four spaces per level with a nested collection's own indentation placed
/// after `key = `; strings bare when they are only ASCII letters and digits,
/// otherwise quoted with `\"`, `\\` and `\Uxxxx` escapes; integers bare
/// (negative ones quoted inside collections, bare at the top level);
/// reals and dates quoted inside collections; booleans as `1`/`0`; data as
/// `{length = N, bytes = 0x…}` (abbreviated past 24 bytes).
///
/// The form loses types and is not meant to be read back; see
/// ``OpenStepWriter`` for one that is.
struct DescriptionWriter {
    struct Options {
        /// Write non-ASCII characters as escapes (`\U00e0` in quoted strings,
        /// `\340` or `\u0101` in a top-level string), as macOS does; when
        /// false, write them as UTF-8.
        var escapeNonASCII = true
        /// Write every byte of data instead of abbreviating past 24 bytes.
        var fullData = false
    }

    private var out: [UInt8] = []
    private let options: Options

    private init(options: Options) { self.options = options }

    static func write(_ value: PropertyList, options: Options = Options()) -> [UInt8] {
        var w = DescriptionWriter(options: options)
        switch value {
        case .string(let s): w.topLevelString(s)
        default: w.value(value, level: 0, topLevel: true)
        }
        return w.out
    }

    private mutating func indent(_ level: Int) { out.append(spaces: 4 * level) }

    private mutating func value(_ v: PropertyList, level: Int, topLevel: Bool = false) {
        switch v {
        case .string(let s): quoted(s)
        case .integer(let n):
            // Negative integers are quoted inside collections (the '-' is not
            // a bare-word character there); a top-level value prints bare.
            if n.isNegative, !topLevel { quoted(n.description) } else { out.append(string: n.description) }
        case .real(let d):
            let text = RealFormatting.description(d)
            if topLevel { out.append(string: text) } else { quoted(text) }
        case .boolean(let b): out.append(b ? UInt8(ascii: "1") : UInt8(ascii: "0"))
        case .date(let d):
            var text: [UInt8] = []
            CalendarDate(d).appendDescription(to: &text)
            if topLevel { out.append(contentsOf: text) } else { quoted(String(decoding: text, as: UTF8.self)) }
        case .data(let d): data(d)
        case .uid(let u):
            out.append(ascii: "<CFKeyedArchiverUID>{value = ")
            out.append(decimal: u)
            out.append(ascii: "}")
        case .array(let a):
            indent(level)
            out.append(ascii: "(\n")
            for (k, e) in a.enumerated() {
                indent(level + 1)
                value(e, level: level + 1)
                if k + 1 < a.count { out.append(UInt8(ascii: ",")) }
                out.append(0x0A)
            }
            indent(level)
            out.append(UInt8(ascii: ")"))
        case .dictionary(let d):
            indent(level)
            out.append(ascii: "{\n")
            for i in d.sortedIndices() {
                let (key, element) = d[i]
                indent(level + 1)
                quoted(key.string)
                out.append(ascii: " = ")
                value(element, level: level + 1)
                out.append(ascii: ";\n")
            }
            indent(level)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A string leaf: bare when it is only ASCII letters and digits.
    private mutating func quoted(_ s: String) {
        let bare = !s.isEmpty && s.utf8.allSatisfy { ASCII.isLetter($0) || ASCII.isDigit($0) }
        if bare { out.append(string: s); return }
        out.append(UInt8(ascii: "\""))
        if options.escapeNonASCII {
            for unit in s.utf16 { escaped(UInt32(unit)) }
        } else {
            for scalar in s.unicodeScalars {
                if scalar.value >= 0x80 { UTF8.encode(scalar) { out.append($0) } } else { escaped(scalar.value) }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// One ASCII character or UTF-16 unit inside quotes.
    private mutating func escaped(_ unit: UInt32) {
        switch unit {
        case 0x22: out.append(ascii: "\\\"")
        case 0x5C: out.append(ascii: "\\\\")
        case 0x0A: out.append(ascii: "\\n")
        case 0x09: out.append(ascii: "\\t")
        case 0x0D: out.append(ascii: "\\r")
        case 0x20..<0x7F: out.append(UInt8(unit))
        default:
            out.append(ascii: "\\U")
            hex4(UInt16(truncatingIfNeeded: unit))
        }
    }

    private mutating func hex4(_ u: UInt16) {
        for shift in stride(from: 12, through: 0, by: -4) {
            out.append(ASCII.hexDigits[Int(u >> UInt16(shift) & 0xF)])
        }
    }

    /// A string printed on its own: raw text, non-ASCII through
    /// NSNonLossyASCIIStringEncoding (`\340` up to U+00FF, `\u0101` above).
    private mutating func topLevelString(_ s: String) {
        guard options.escapeNonASCII else { out.append(string: s); return }
        for unit in s.utf16 {
            if unit < 0x80 {
                out.append(UInt8(unit))
            } else if unit <= 0xFF {
                out.append(UInt8(ascii: "\\"))
                out.append(0x30 + UInt8(unit >> 6))
                out.append(0x30 + UInt8(unit >> 3 & 7))
                out.append(0x30 + UInt8(unit & 7))
            } else {
                out.append(ascii: "\\u")
                hex4(unit)
            }
        }
    }

    private mutating func data(_ d: Data) {
        out.append(ascii: "{length = ")
        out.append(decimal: UInt64(d.count))
        out.append(ascii: ", bytes = 0x")
        func hex(_ byte: UInt8) {
            out.append(ASCII.hexDigits[Int(byte >> 4)])
            out.append(ASCII.hexDigits[Int(byte & 0xF)])
        }
        if d.count <= 24 || options.fullData {
            for byte in d { hex(byte) }
            out.append(UInt8(ascii: "}"))
            return
        }
        let bytes = [UInt8](d)
        for k in 0..<16 {
            if k > 0, k % 4 == 0 { out.append(0x20) }
            hex(bytes[k])
        }
        out.append(ascii: " ... ")
        let tail = bytes.count - 8
        for k in tail..<bytes.count {
            if k > tail, (k - tail) % 4 == 0 { out.append(0x20) }
            hex(bytes[k])
        }
        out.append(ascii: " }")
    }
}
