/// The start and end tags of an XML document, with attributes, for reading
/// GSettings schema files: text, comments, processing instructions, CDATA
/// and the document type are skipped. Not a validating parser: a malformed
/// document ends the sequence early (what was read so far stands).
///
/// ```swift
/// for event in XMLEvents(Array("<a x='1'/>".utf8)) { print(event) }   // start("a", ["x": "1"], true)
/// ```
struct XMLEvents: Sequence, IteratorProtocol {
    enum Event: Equatable {
        case start(String, [String: String], selfClosing: Bool)
        case end(String)
    }

    private let bytes: [UInt8]
    private var i = 0
    private var pendingEnd: String?

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> Event? {
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "<") else { i += 1; continue }
            if starts(with: "<!--") { guard skip(past: "-->") else { return nil }; continue }
            if starts(with: "<![CDATA[") { guard skip(past: "]]>") else { return nil }; continue }
            if starts(with: "<?") { guard skip(past: "?>") else { return nil }; continue }
            if starts(with: "<!") { guard skip(past: ">") else { return nil }; continue }
            if starts(with: "</") {
                i += 2
                let name = readName()
                guard skip(past: ">") else { return nil }
                return .end(name)
            }
            i += 1
            let name = readName()
            guard !name.isEmpty else { return nil }
            var attributes: [String: String] = [:]
            while true {
                skipSpace()
                guard i < bytes.count else { return nil }
                if bytes[i] == UInt8(ascii: ">") { i += 1; return .start(name, attributes, selfClosing: false) }
                if starts(with: "/>") { i += 2; return .start(name, attributes, selfClosing: true) }
                let attribute = readName()
                guard !attribute.isEmpty else { return nil }
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { return nil }
                i += 1
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else { return nil }
                let quote = bytes[i]
                i += 1
                let start = i
                while i < bytes.count, bytes[i] != quote { i += 1 }
                guard i < bytes.count else { return nil }
                attributes[attribute] = Self.unescape(bytes[start..<i])
                i += 1
            }
        }
        return nil
    }

    private func starts(with text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard i + n <= bytes.count else { return false }
        return text.withUTF8Buffer { bytes[i..<(i + n)].elementsEqual($0) }
    }

    /// Moves past the next `end`; false when there is none.
    private mutating func skip(past end: StaticString) -> Bool {
        while i < bytes.count {
            if starts(with: end) { i += end.utf8CodeUnitCount; return true }
            i += 1
        }
        return false
    }

    private mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    private mutating func readName() -> String {
        let start = i
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == UInt8(ascii: ">") || b == UInt8(ascii: "/") || b == UInt8(ascii: "=") { break }
            i += 1
        }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    /// An attribute value with its five named entities and character references replaced.
    static func unescape(_ raw: ArraySlice<UInt8>) -> String {
        let text = String(decoding: raw, as: UTF8.self)
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";") else { out += rest[amp...]; return out }
            let entity = rest[rest.index(after: amp)..<semi]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let number, let scalar = Unicode.Scalar(number) { out.unicodeScalars.append(scalar) } else { out += rest[amp...semi] }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }
}
