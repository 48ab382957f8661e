/// Why a property list could not be read or written, and where.
///
/// Every reader reports the format, a position (a byte offset for binary
/// data, a line and column for text) and what it expected there.
///
/// ```swift
/// do {
///     _ = try PropertyList(decoding: Array("<plist><dict>".utf8))
/// } catch {
///     print(error)  // XML property list, line 1, column 14: expected '</dict>' …
/// }
/// ```
public struct PropertyListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where in the input (or in the value) the problem is.
    public enum Location: Sendable, Hashable {
        /// A byte offset from the start of the input.
        case byteOffset(Int)
        /// A 1-based line and column of a text document.
        case lineColumn(line: Int, column: Int)
        /// A key path inside a value (for writers).
        case keyPath(String)
        /// The input as a whole.
        case whole
    }

    /// The format being read or written, if known.
    public var format: PropertyListFormat?
    /// Where the problem is.
    public var location: Location
    /// What was found and what was expected.
    public var reason: String
    /// The input expands through shared references beyond the bound in
    /// force (the library's, or the caller's
    /// ``PropertyList/PropertyList/ExpansionLimit``): it is too large rather
    /// than malformed.
    public var exceedsExpansionLimit = false

    /// Creates an error.
    public init(format: PropertyListFormat?, location: Location, reason: String) {
        self.format = format
        self.location = location
        self.reason = reason
    }

    public var description: String {
        var s = format.map { "\($0.displayName)" } ?? "property list"
        switch location {
        case .byteOffset(let o): s += ", byte offset \(o)"
        case .lineColumn(let l, let c): s += ", line \(l), column \(c)"
        case .keyPath(let p): s += p.isEmpty ? ", at the root" : ", at key path '\(p)'"
        case .whole: break
        }
        return s + ": " + reason
    }
}

extension PropertyListError {
    /// An error at a byte offset of a text document, turned into a line and column.
    static func text(
        _ format: PropertyListFormat, _ bytes: UnsafeRawBufferPointer, offset: Int, _ reason: String
    ) -> PropertyListError {
        var line = 1
        var lineStart = 0
        let end = min(max(offset, 0), bytes.count)
        var i = 0
        while i < end {
            if bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
            i += 1
        }
        // Count characters, not bytes: skip UTF-8 continuation bytes.
        var column = 1
        i = lineStart
        while i < end {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return PropertyListError(format: format, location: .lineColumn(line: line, column: column), reason: reason)
    }
}
