#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the old-style (OpenStep) text format, as CoreFoundation does.
///
/// - `{ key = value; }` dictionaries, `( a, b )` arrays, `<0fbd 7777>` data;
/// - quoted strings (`"…"` or `'…'`) with `\a \b \f \n \r \t \v \" \\`,
///   octal escapes through the NeXTSTEP character set and `\U` hexadecimal
///   escapes; unquoted strings of letters, digits and `_$/:.-`;
/// - `//` and `/* */` comments;
/// - `.strings` files: a top level of `"key" = "value";` entries without
///   braces, and the `"key";` shortcut (the value is the key);
/// - GNUstep's typed forms `<*I12>`, `<*R1.5>`, `<*BY>`, `<*BN>`,
///   `<*D2024-01-02 03:04:05 +0000>`.
///
/// Leaves are strings or data unless written in a typed form. Text may be
/// UTF-8 or, with a byte-order mark, UTF-16 or UTF-32. A file of nothing but
/// whitespace and comments is an empty dictionary.
struct OpenStepReader {
    static let maxDepth = 512

    private let bytes: UnsafeRawBufferPointer
    private let strict: Bool
    private var i = 0
    /// Entries of the dictionaries being read, innermost last: each dictionary
    /// is built once, at its final size, or copied from a recurring shape.
    private var entryStack: [(LiteralString, PropertyList)] = []
    private var recurringKeys = RecurringKeys<UInt64>()

    private init(_ bytes: UnsafeRawBufferPointer, strict: Bool) {
        self.bytes = bytes
        self.strict = strict
    }

    /// Reads a document. When `strict` is false, a `.strings` file stops at
    /// the first character that cannot start an entry and the rest is ignored,
    /// as CoreFoundation does; when true, that is an error.
    static func read(_ raw: UnsafeRawBufferPointer, strict: Bool = false) throws(PropertyListError) -> PropertyList {
        try TextDecoding.withUTF8(raw, format: .openStep) { (text) throws(PropertyListError) in
            var reader = OpenStepReader(text, strict: strict)
            return try reader.document()
        }
    }

    private func fail(_ reason: String, at offset: Int? = nil) -> PropertyListError {
        .text(.openStep, bytes, offset: offset ?? i, reason)
    }

    private mutating func document() throws(PropertyListError) -> PropertyList {
        if bytes.isEmpty { throw fail("expected a property list, found an empty file") }
        guard try skipSpace() else { return .dictionary([:]) }
        let first = try object(depth: 0)
        guard try skipSpace() else { return first }
        guard case .string = first else {
            throw fail("expected the end of the property list, found more text")
        }
        // A `.strings` file: dictionary entries without the braces.
        i = 0
        let entries = try dictionaryContent(depth: 0)
        if try skipSpace(), strict {
            throw fail("expected a quoted key or the end of the file, found '\(Character(Unicode.Scalar(bytes[i])))'")
        }
        return entries
    }

    // MARK: Whitespace and comments

    /// Skips whitespace and comments; returns false at the end of the input.
    private mutating func skipSpace() throws(PropertyListError) -> Bool {
        while i < bytes.count {
            let c = bytes[i]
            if ASCII.isSpace(c) { i += 1; continue }
            if c == 0xE2, i + 2 < bytes.count, bytes[i + 1] == 0x80, bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9 {
                i += 3; continue  // U+2028, U+2029
            }
            if c == UInt8(ascii: "/"), i + 1 < bytes.count {
                if bytes[i + 1] == UInt8(ascii: "/") {
                    i += 2
                    while i < bytes.count, bytes[i] != 0x0A, bytes[i] != 0x0D { i += 1 }
                    continue
                }
                if bytes[i + 1] == UInt8(ascii: "*") {
                    let start = i
                    i += 2
                    while i + 1 < bytes.count, !(bytes[i] == UInt8(ascii: "*") && bytes[i + 1] == UInt8(ascii: "/")) { i += 1 }
                    guard i + 1 < bytes.count else { throw fail("expected '*/' to end this comment", at: start) }
                    i += 2
                    continue
                }
            }
            return true
        }
        return false
    }

    @inline(__always) static func isUnquoted(_ c: UInt8) -> Bool {
        ASCII.isLetter(c) || ASCII.isDigit(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: "$")
            || c == UInt8(ascii: "/") || c == UInt8(ascii: ":") || c == UInt8(ascii: ".") || c == UInt8(ascii: "-")
    }

    // MARK: Objects

    private mutating func object(depth: Int) throws(PropertyListError) -> PropertyList {
        guard depth <= Self.maxDepth else { throw fail("nesting is deeper than \(Self.maxDepth) levels") }
        guard try skipSpace() else { throw fail("expected a value, found the end of the file") }
        let c = bytes[i]
        switch c {
        case UInt8(ascii: "{"):
            let start = i
            i += 1
            let d = try dictionaryContent(depth: depth + 1)
            guard try skipSpace(), bytes[i] == UInt8(ascii: "}") else {
                throw fail("expected '}' to close the dictionary opened at \(position(start))")
            }
            i += 1
            return d
        case UInt8(ascii: "("):
            let start = i
            i += 1
            return try array(depth: depth + 1, start: start)
        case UInt8(ascii: "<"):
            i += 1
            return try dataOrTyped()
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return .string(try quoted())
        default:
            if Self.isUnquoted(c) { return .string(unquoted()) }
            throw fail("expected a value ('{', '(', '<', a quoted or unquoted string), found '\(printable(c))'")
        }
    }

    private func printable(_ c: UInt8) -> String {
        c >= 0x20 && c < 0x7F ? String(Character(Unicode.Scalar(c))) : "\\x" + String(c, radix: 16)
    }

    private func position(_ offset: Int) -> String {
        if case .lineColumn(let l, let c) = PropertyListError.text(.openStep, bytes, offset: offset, "").location {
            return "line \(l), column \(c)"
        }
        return "offset \(offset)"
    }

    private mutating func array(depth: Int, start: Int) throws(PropertyListError) -> PropertyList {
        var elements: [PropertyList] = []
        while true {
            guard try skipSpace() else { throw fail("expected ')' to close the array opened at \(position(start))") }
            if bytes[i] == UInt8(ascii: ")") { i += 1; return .array(elements) }
            elements.append(try object(depth: depth))
            guard try skipSpace() else { throw fail("expected ',' or ')' in the array opened at \(position(start))") }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
            } else if bytes[i] != UInt8(ascii: ")") {
                throw fail("expected ',' or ')' in the array opened at \(position(start)), found '\(printable(bytes[i]))'")
            }
        }
    }

    /// Entries `key = value;` (or `key;`) up to a character that cannot start a key.
    private mutating func dictionaryContent(depth: Int) throws(PropertyListError) -> PropertyList {
        guard depth <= Self.maxDepth else { throw fail("nesting is deeper than \(Self.maxDepth) levels") }
        let base = entryStack.count
        defer { if entryStack.count > base { entryStack.removeSubrange(base...) } }
        // A fingerprint of the keys (see RecurringKeys): each key's length and end bytes.
        var fingerprint: UInt64 = 0
        while try skipSpace() {
            let c = bytes[i]
            let keyStart = i
            let key: String
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                key = try quoted()
            } else if Self.isUnquoted(c) {
                key = unquoted()
            } else {
                break
            }
            fingerprint = RecurringKeys.fingerprint(fingerprint, adding: UnsafeRawBufferPointer(rebasing: bytes[keyStart..<i]))
            guard try skipSpace() else { throw fail("expected '=' or ';' after the key \"\(key.prefix(40))\", found the end of the file") }
            if bytes[i] == UInt8(ascii: ";") {
                entryStack.append((LiteralString(key), .string(key)))
            } else if bytes[i] == UInt8(ascii: "=") {
                i += 1
                let value = try object(depth: depth)
                entryStack.append((LiteralString(key), value))
                guard try skipSpace(), bytes[i] == UInt8(ascii: ";") else {
                    throw fail("expected ';' after the value of \"\(key.prefix(40))\"")
                }
            } else {
                throw fail("expected '=' or ';' after the key \"\(key.prefix(40))\", found '\(printable(bytes[i]))'")
            }
            i += 1
        }
        if entryStack.count == base { return .dictionary([:]) }
        return .dictionary(recurringKeys.dictionary(taking: &entryStack, from: base, fingerprint: fingerprint))
    }

    private mutating func unquoted() -> String {
        let start = i
        while i < bytes.count, Self.isUnquoted(bytes[i]) { i += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
    }

    private mutating func quoted() throws(PropertyListError) -> String {
        let quote = bytes[i]
        let start = i
        i += 1
        let contentStart = i
        // Fast path: no escapes.
        while i < bytes.count, bytes[i] != quote, bytes[i] != UInt8(ascii: "\\") { i += 1 }
        guard i < bytes.count else { throw fail("expected a closing \(printable(quote)) for the string that starts here", at: start) }
        if bytes[i] == quote {
            let s = try validated(UnsafeRawBufferPointer(rebasing: bytes[contentStart..<i]), at: contentStart)
            i += 1
            return s
        }
        var out = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[contentStart..<i]))
        var pendingHigh: UInt16? = nil
        func emit(_ scalar: Unicode.Scalar) { UTF8.encode(scalar) { out.append($0) } }
        func flushHigh() {
            if pendingHigh != nil { emit("\u{FFFD}"); pendingHigh = nil }
        }
        func emitUnit(_ u: UInt16) {
            if u & 0xFC00 == 0xDC00, let high = pendingHigh {
                pendingHigh = nil
                emit(Unicode.Scalar(0x10000 + (UInt32(high - 0xD800) << 10) + UInt32(u - 0xDC00))!)
                return
            }
            flushHigh()
            if u & 0xFC00 == 0xD800 { pendingHigh = u; return }
            emit(Unicode.Scalar(u) ?? "\u{FFFD}")
        }
        while true {
            guard i < bytes.count else { throw fail("expected a closing \(printable(quote)) for the string that starts here", at: start) }
            let c = bytes[i]
            if c == quote { i += 1; break }
            if c != UInt8(ascii: "\\") {
                flushHigh()
                out.append(c)
                i += 1
                continue
            }
            i += 1
            guard i < bytes.count else { throw fail("expected a character after '\\', found the end of the file") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var v = Int(e - 0x30)
                var k = 0
                while k < 2, i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x37 {
                    v = (v << 3 + Int(bytes[i] - 0x30)) & 0xFF
                    i += 1
                    k += 1
                }
                if v < 0x80 {
                    emitUnit(UInt16(v))
                } else if v < 0xFE {
                    emitUnit(NeXTSTEPEncoding.upperHalf[v - 0x80])
                } else {
                    throw fail("octal escape \\\(String(v, radix: 8)) names no character of the NeXTSTEP set", at: i - 4)
                }
            case UInt8(ascii: "U"):
                var v: UInt16 = 0
                var k = 0
                while k < 4, i < bytes.count, let d = ASCII.hexValue(bytes[i]) {
                    v = v << 4 | UInt16(d)
                    i += 1
                    k += 1
                }
                emitUnit(v)
            case UInt8(ascii: "a"): emitUnit(7)
            case UInt8(ascii: "b"): emitUnit(8)
            case UInt8(ascii: "f"): emitUnit(12)
            case UInt8(ascii: "n"): emitUnit(10)
            case UInt8(ascii: "r"): emitUnit(13)
            case UInt8(ascii: "t"): emitUnit(9)
            case UInt8(ascii: "v"): emitUnit(11)
            default:
                // Any other character stands for itself (including a multi-byte one).
                flushHigh()
                out.append(e)
            }
        }
        flushHigh()
        return try out.withTypedBytes { (b) throws(PropertyListError) in try validated(b, at: contentStart) }
    }

    private func validated(_ b: UnsafeRawBufferPointer, at offset: Int) throws(PropertyListError) -> String {
        guard let s = UTF8Text.string(b) else {
            throw fail("expected UTF-8 text, found invalid bytes", at: offset)
        }
        return s
    }

    /// After `<`: hexadecimal data up to `>`, or a GNUstep typed value `<*…>`.
    private mutating func dataOrTyped() throws(PropertyListError) -> PropertyList {
        let start = i - 1
        if i < bytes.count, bytes[i] == UInt8(ascii: "*") {
            i += 1
            guard i < bytes.count else { throw fail("expected a type letter after '<*'") }
            let type = bytes[i]
            i += 1
            let bodyStart = i
            while i < bytes.count, bytes[i] != UInt8(ascii: ">") { i += 1 }
            guard i < bytes.count else { throw fail("expected '>' to close the typed value", at: start) }
            let body = UnsafeRawBufferPointer(rebasing: bytes[bodyStart..<i])
            i += 1
            switch type {
            case UInt8(ascii: "I"):
                if let v = NumberParsing.integer(body) { return .integer(v) }
                throw fail("expected an integer in <*I…>", at: start)
            case UInt8(ascii: "R"):
                if let v = NumberParsing.real(body) { return .real(v) }
                throw fail("expected a real number in <*R…>", at: start)
            case UInt8(ascii: "B"):
                if body.count == 1, body[0] == UInt8(ascii: "Y") { return .boolean(true) }
                if body.count == 1, body[0] == UInt8(ascii: "N") { return .boolean(false) }
                throw fail("expected <*BY> or <*BN>", at: start)
            case UInt8(ascii: "D"):
                if let t = CalendarDate.parseDescription(body) { return .date(Date(timeIntervalSinceReferenceDate: t)) }
                throw fail("expected a date as <*DYYYY-MM-DD HH:MM:SS +ZZZZ>", at: start)
            default:
                throw fail("unknown typed value '<*\(printable(type))' (expected I, R, B or D)", at: start)
            }
        }
        var out: [UInt8] = []
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: ">") { i += 1; return .data(Data(out)) }
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1; continue }
            guard let hi = ASCII.hexValue(c) else {
                throw fail("expected hexadecimal digits or '>' in data, found '\(printable(c))'")
            }
            guard i + 1 < bytes.count, let lo = ASCII.hexValue(bytes[i + 1]) else {
                throw fail("expected hexadecimal digits in pairs in data (an odd number of digits)")
            }
            out.append(hi << 4 | lo)
            i += 2
        }
        throw fail("expected '>' to close the data", at: start)
    }
}
