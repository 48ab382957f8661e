#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes Apple's XML property-list format, byte for byte as CoreFoundation
/// does: the standard header and DOCTYPE, tab indentation, sorted keys,
/// `<dict/>` and `<array/>` for empty collections, `&lt; &gt; &amp;` escapes,
/// base64 in lines of 76 - 8×depth characters (at least 16), dates as
/// `YYYY-MM-DDTHH:MM:SSZ`, and a trailing newline.
struct XMLWriter {
    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    static func write(_ value: PropertyList) -> ByteOutput {
        var out = ByteOutput()
        out.append(string: header)
        Self.value(value, indent: 0, into: &out)
        out.append(ascii: "</plist>\n")
        return out
    }

    static func value(_ v: PropertyList, indent: Int, into out: inout ByteOutput) {
        out.append(tabs: indent)
        switch v {
        case .string(var s):
            s.withUTF8 { string(UnsafeRawBufferPointer($0), into: &out) }
        case .integer(let n):
            integer(n, into: &out)
        case .real(let d):
            out.append(ascii: "<real>")
            RealFormatting.appendXML(d, to: &out)
            out.append(ascii: "</real>\n")
        case .boolean(let b):
            out.append(ascii: b ? "<true/>\n" : "<false/>\n")
        case .date(let d):
            out.append(ascii: "<date>")
            CalendarDate(d).appendISO8601(to: &out)
            out.append(ascii: "</date>\n")
        case .data(let d):
            d.withUnsafeBytes { data($0, indent: indent, into: &out) }
        case .array(let a):
            if a.isEmpty { out.append(ascii: "<array/>\n"); return }
            out.append(ascii: "<array>\n")
            for e in a { value(e, indent: indent + 1, into: &out) }
            out.append(tabs: indent)
            out.append(ascii: "</array>\n")
        case .dictionary(let d):
            if d.isEmpty { out.append(ascii: "<dict/>\n"); return }
            out.append(ascii: "<dict>\n")
            for i in d.sortedIndices() {
                let (key, element) = d[i]
                var text = key.string
                text.withUTF8 { Self.key(UnsafeRawBufferPointer($0), indent: indent + 1, into: &out) }
                value(element, indent: indent + 1, into: &out)
            }
            out.append(tabs: indent)
            out.append(ascii: "</dict>\n")
        case .uid(let u):
            out.append(ascii: "<dict>\n")
            out.append(tabs: indent + 1)
            out.append(ascii: "<key>CF$UID</key>\n")
            out.append(tabs: indent + 1)
            out.append(ascii: "<integer>")
            out.append(decimal: u)
            out.append(ascii: "</integer>\n")
            out.append(tabs: indent)
            out.append(ascii: "</dict>\n")
        }
    }

    /// A data object's element: base64 in lines of 76 - 8×depth characters
    /// (at least 16), the element's tabs before it (written by the caller).
    static func data(_ bytes: UnsafeRawBufferPointer, indent: Int, into out: inout ByteOutput) {
        out.append(ascii: "<data>\n")
        Base64.encode(bytes, lineLength: max(16, 76 - 8 * indent), indent: indent, into: &out)
        out.append(tabs: indent)
        out.append(ascii: "</data>\n")
    }

    /// A string's element, its UTF-8 escaped (the tabs before it written by the caller).
    static func string(_ text: UnsafeRawBufferPointer, into out: inout ByteOutput) {
        out.append(ascii: "<string>")
        escaped(text, into: &out)
        out.append(ascii: "</string>\n")
    }

    /// An integer's element (the tabs before it written by the caller).
    static func integer(_ n: PropertyList.Integer, into out: inout ByteOutput) {
        out.append(ascii: "<integer>")
        if let i = n.int64Value { out.append(decimal: i) } else { out.append(decimal: n.uint64Value!) }
        out.append(ascii: "</integer>\n")
    }

    /// A dictionary key's line: `indent` tabs, then the key's UTF-8 escaped.
    static func key(_ text: UnsafeRawBufferPointer, indent: Int, into out: inout ByteOutput) {
        out.append(tabs: indent)
        out.append(ascii: "<key>")
        escaped(text, into: &out)
        out.append(ascii: "</key>\n")
    }

    /// UTF-8 text with `<`, `>` and `&` escaped.
    private static func escaped(_ b: UnsafeRawBufferPointer, into out: inout ByteOutput) {
        var start = 0
        for k in 0..<b.count {
            let c = b[k]
            guard c == UInt8(ascii: "<") || c == UInt8(ascii: ">") || c == UInt8(ascii: "&") else { continue }
            out.append(bytes: UnsafeRawBufferPointer(rebasing: b[start..<k]))
            switch c {
            case UInt8(ascii: "<"): out.append(ascii: "&lt;")
            case UInt8(ascii: ">"): out.append(ascii: "&gt;")
            default: out.append(ascii: "&amp;")
            }
            start = k + 1
        }
        out.append(bytes: UnsafeRawBufferPointer(rebasing: b[start...]))
    }
}
