/// The encodings a property list can be stored in.
///
/// ```swift
/// PropertyListFormat.detect(Array("bplist00".utf8))  // .binary
/// ```
public enum PropertyListFormat: String, Sendable, Hashable, CaseIterable {
    /// Apple's XML format (`plutil -convert xml1`).
    case xml
    /// Apple's binary format, `bplist00` (`plutil -convert binary1`).
    case binary
    /// The old-style (OpenStep, NeXTSTEP) text format, including `.strings` files.
    case openStep
    /// JSON: holds no dates, data or UIDs.
    case json

    /// A human-readable name, as used in error messages.
    public var displayName: String {
        switch self {
        case .xml: "XML property list"
        case .binary: "binary property list"
        case .openStep: "old-style property list"
        case .json: "JSON property list"
        }
    }

    /// The format the bytes are most likely in.
    ///
    /// Binary is recognised by its `bplist` magic; XML by a leading `<?xml`,
    /// `<!`, or a property-list element; JSON by a leading `[` (a leading `{`
    /// may be JSON or old-style and is reported as `.openStep`; the generic
    /// reader tries both). Everything else is old-style text.
    public static func detect(_ bytes: some Collection<UInt8>) -> PropertyListFormat {
        if bytes.starts(with: [0x62, 0x70, 0x6C, 0x69, 0x73, 0x74]) { return .binary }
        let head = Array(bytes.prefix(4096))
        return head.withUnsafeBytes { raw in
            (try? TextDecoding.withUTF8(raw, limit: 4096) { text in detectText(text) }) ?? .openStep
        }
    }

    static func detectText(_ text: UnsafeRawBufferPointer) -> PropertyListFormat {
        var i = 0
        while i < text.count, ASCII.isSpace(text[i]) { i += 1 }
        guard i < text.count else { return .openStep }
        switch text[i] {
        case UInt8(ascii: "<"):
            guard i + 1 < text.count else { return .openStep }
            let c = text[i + 1]
            if c == UInt8(ascii: "?") || c == UInt8(ascii: "!") { return .xml }
            var j = i + 1
            while j < text.count, ASCII.isLetter(text[j]) { j += 1 }
            let name = UnsafeRawBufferPointer(rebasing: text[(i + 1)..<j])
            if j < text.count, j > i + 1, XMLTag(name) != nil,
                text[j] == UInt8(ascii: ">") || text[j] == UInt8(ascii: "/") || ASCII.isSpace(text[j])
            {
                return .xml
            }
            return .openStep
        case UInt8(ascii: "["): return .json
        default: return .openStep
        }
    }
}
