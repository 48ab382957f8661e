#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes the old-style text format in a strict form that
/// ``OpenStepReader`` reads back to the same value.
///
/// Strings are quoted unless they consist only of characters that may stand
/// unquoted; data is `<hex>`; integers, reals, booleans and dates use
/// GNUstep's typed forms `<*I…>`, `<*R…>`, `<*BY>`/`<*BN>` and `<*D…>`
/// (which Apple's reader does not know). UIDs have no old-style form.
struct OpenStepWriter: ~Copyable {
    private var out = ByteOutput(capacity: 1 << 16)
    private var trail = KeyPathTrail()

    static func write(_ value: PropertyList) throws(PropertyListError) -> ByteOutput {
        var w = OpenStepWriter()
        try w.value(value, level: 0)
        w.out.append(0x0A)
        return w.out
    }

    private mutating func value(_ v: PropertyList, level: Int) throws(PropertyListError) {
        switch v {
        case .string(let s): string(s)
        case .integer(let n):
            out.append(ascii: "<*I")
            if let i = n.int64Value { out.append(decimal: i) } else { out.append(decimal: n.uint64Value!) }
            out.append(UInt8(ascii: ">"))
        case .real(let d):
            out.append(ascii: "<*R")
            out.append(string: d.isNaN ? "nan" : d.isInfinite ? (d > 0 ? "inf" : "-inf") : "\(d)")
            out.append(UInt8(ascii: ">"))
        case .boolean(let b): out.append(ascii: b ? "<*BY>" : "<*BN>")
        case .date(let d):
            guard d.timeIntervalSinceReferenceDate == d.timeIntervalSinceReferenceDate.rounded(.down) else {
                throw PropertyListError(format: .openStep, location: .keyPath(trail.text),
                    reason: "the old-style date form holds whole seconds only; this date has a fraction of a second")
            }
            out.append(ascii: "<*D")
            CalendarDate(d).appendDescription(to: &out)
            out.append(UInt8(ascii: ">"))
        case .data(let d):
            out.append(UInt8(ascii: "<"))
            out.reserve(d.count * 9 / 4 + 2)
            for (k, byte) in d.enumerated() {
                if k > 0, k % 4 == 0 { out.append(0x20) }
                out.append(ASCII.hexDigits[Int(byte >> 4)])
                out.append(ASCII.hexDigits[Int(byte & 0xF)])
            }
            out.append(UInt8(ascii: ">"))
        case .uid:
            throw PropertyListError(format: .openStep, location: .keyPath(trail.text),
                reason: "keyed-archive UIDs have no old-style form")
        case .array(let a):
            if a.isEmpty { out.append(ascii: "()"); return }
            out.append(ascii: "(\n")
            for (k, e) in a.enumerated() {
                out.append(spaces: 4 * (level + 1))
                trail.push(index: k)
                try value(e, level: level + 1)
                trail.pop()
                if k + 1 < a.count { out.append(UInt8(ascii: ",")) }
                out.append(0x0A)
            }
            out.append(spaces: 4 * level)
            out.append(UInt8(ascii: ")"))
        case .dictionary(let d):
            if d.isEmpty { out.append(ascii: "{}"); return }
            out.append(ascii: "{\n")
            for i in d.sortedIndices() {
                let (key, element) = d[i]
                out.append(spaces: 4 * (level + 1))
                string(key.string)
                out.append(ascii: " = ")
                trail.push(key: key.string)
                try value(element, level: level + 1)
                trail.pop()
                out.append(ascii: ";\n")
            }
            out.append(spaces: 4 * level)
            out.append(UInt8(ascii: "}"))
        }
    }

    private mutating func string(_ s: String) {
        // `/` may stand unquoted, but `//` and `/*` would start comments: quote any string with a slash.
        if !s.isEmpty, s.utf8.allSatisfy({ OpenStepReader.isUnquoted($0) && $0 != UInt8(ascii: "/") }) {
            out.append(string: s)
            return
        }
        out.append(UInt8(ascii: "\""))
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x22: out.append(ascii: "\\\"")
            case 0x5C: out.append(ascii: "\\\\")
            case 0x0A: out.append(ascii: "\\n")
            case 0x09: out.append(ascii: "\\t")
            case 0x0D: out.append(ascii: "\\r")
            case 0..<0x20, 0x7F:
                out.append(ascii: "\\U00")
                out.append(ASCII.hexDigits[Int(scalar.value >> 4)])
                out.append(ASCII.hexDigits[Int(scalar.value & 0xF)])
            default: UTF8.encode(scalar) { out.append($0) }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
