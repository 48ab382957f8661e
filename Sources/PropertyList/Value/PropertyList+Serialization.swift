#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension PropertyList {
    /// Reads a property list in any format.
    ///
    /// Without a `format`, the format is detected from the bytes: binary by
    /// its magic, XML by its markup, and text that starts with `{` is tried
    /// as JSON and then as old-style.
    ///
    /// ```swift
    /// let value = try PropertyList(decoding: Data(contentsOf: url))
    /// let strings = try PropertyList(decoding: Array(#""greeting" = "Hello";"#.utf8))
    /// strings["greeting"]  // .string("Hello")
    /// ```
    /// - Throws: ``PropertyListError`` naming the format, the position and what was expected.
    public init(
        decoding bytes: some ContiguousBytes, format: PropertyListFormat? = nil, options: DecodingOptions = DecodingOptions()
    ) throws(PropertyListError) {
        self = try Self.decode(bytes, format: format, options: options).value
    }

    /// Options for reading.
    public struct DecodingOptions: Sendable, Hashable {
        /// Reject a `.strings` file with text after its last well-formed entry.
        ///
        /// CoreFoundation stops reading a `.strings` file at the first
        /// character that cannot start an entry (a stray `=`, say) and
        /// silently drops the rest; that is the default here too, so that
        /// values match Apple's. `plutil -lint` sets this to report such files.
        public var rejectsTruncatedStringsFiles: Bool
        /// A tighter bound on how far a binary property list may expand
        /// through shared references (objects, and string and data bytes,
        /// counted once per reference), for a caller whose own limits are
        /// small — a key-value store's 1 MB value. Nil keeps the library's
        /// bound (32× the file, floors 2^20 objects / 64 MiB).
        public var maximumExpansion: ExpansionLimit?
        /// Creates options.
        public init(rejectsTruncatedStringsFiles: Bool = false, maximumExpansion: ExpansionLimit? = nil) {
            self.rejectsTruncatedStringsFiles = rejectsTruncatedStringsFiles
            self.maximumExpansion = maximumExpansion
        }
    }

    /// How far a binary property list may expand through shared references.
    ///
    /// ```swift
    /// let options = PropertyList.DecodingOptions(maximumExpansion: .init(objects: 1 << 20, bytes: 2 << 20))
    /// let value = try PropertyList(decoding: bytes, format: .binary, options: options)
    /// ```
    public struct ExpansionLimit: Sendable, Hashable {
        /// The most objects, counted once per reference.
        public var objects: Int
        /// The most string and data bytes, counted once per reference.
        public var bytes: Int
        /// A limit of `objects` objects and `bytes` bytes.
        public init(objects: Int, bytes: Int) {
            self.objects = objects
            self.bytes = bytes
        }
    }

    /// Reads a property list and reports the format it was in.
    ///
    /// ```swift
    /// let (value, format) = try PropertyList.decode(bytes)
    /// // write it back the way it came
    /// let again = try value.encoded(as: format)
    /// ```
    public static func decode(
        _ bytes: some ContiguousBytes, format: PropertyListFormat? = nil, options: DecodingOptions = DecodingOptions()
    ) throws(PropertyListError) -> (value: PropertyList, format: PropertyListFormat) {
        let result: Result<(PropertyList, PropertyListFormat), PropertyListError> = bytes.withUnsafeBytes { raw in
            Result { () throws(PropertyListError) in try decode(raw: raw, format: format, options: options) }
        }
        return try result.get()
    }

    static func decode(
        raw: UnsafeRawBufferPointer, format: PropertyListFormat?, options: DecodingOptions
    ) throws(PropertyListError) -> (PropertyList, PropertyListFormat) {
        let strict = options.rejectsTruncatedStringsFiles
        let format = format ?? PropertyListFormat.detect(raw)
        switch format {
        case .binary: return (try BinaryReader.read(raw, maximumExpansion: options.maximumExpansion), .binary)
        case .xml: return (try XMLReader<PropertyListBuilder>.read(raw), .xml)
        case .json: return (try JSONReader.read(raw), .json)
        case .openStep:
            // A leading `{` may be JSON or old-style: try both, report the error that got further.
            guard startsWithBrace(raw) else { return (try OpenStepReader.read(raw, strict: strict), .openStep) }
            do {
                return (try OpenStepReader.read(raw, strict: strict), .openStep)
            } catch let openStepError {
                do {
                    return (try JSONReader.read(raw), .json)
                } catch let jsonError {
                    throw JSONReader.progress(of: jsonError) > JSONReader.progress(of: openStepError) ? jsonError : openStepError
                }
            }
        }
    }

    private static func startsWithBrace(_ raw: UnsafeRawBufferPointer) -> Bool {
        (try? TextDecoding.withUTF8(raw, limit: 64, format: .openStep) { t in
            t.first(where: { !ASCII.isSpace($0) }) == UInt8(ascii: "{")
        }) ?? false
    }

    /// Options for ``encoded(as:options:)``.
    public struct EncodingOptions: Sendable, Hashable {
        /// JSON only: indent the output (`plutil -convert json -r`).
        public var prettyJSON: Bool
        /// Creates options.
        public init(prettyJSON: Bool = false) { self.prettyJSON = prettyJSON }
    }

    /// The bytes of this value in `format`.
    ///
    /// ```swift
    /// let value: PropertyList = ["a": 1]
    /// let xml = try value.encoded(as: .xml)        // Apple's XML, byte for byte
    /// let binary = try value.encoded(as: .binary)  // bplist00
    /// ```
    /// - Throws: ``PropertyListError`` when the format cannot hold the value
    ///   (dates, data and UIDs in JSON; UIDs in old-style text), naming the key path.
    public func encoded(as format: PropertyListFormat, options: EncodingOptions = EncodingOptions()) throws(PropertyListError) -> [UInt8] {
        try encodedOutput(as: format, options: options).bytes()
    }

    /// ``encoded(as:options:)`` in the writers' own buffer, for a caller that
    /// writes the bytes out and need not copy them into an array (`plutil`).
    package func encodedOutput(as format: PropertyListFormat, options: EncodingOptions = EncodingOptions()) throws(PropertyListError) -> ByteOutput {
        switch format {
        case .xml: XMLWriter.write(self)
        case .binary: BinaryWriter.write(self)
        case .openStep: try OpenStepWriter.write(self)
        case .json: try JSONWriter.write(self, pretty: options.prettyJSON)
        }
    }

    /// The bytes of this value in `format`, as `Data`.
    public func data(as format: PropertyListFormat, options: EncodingOptions = EncodingOptions()) throws(PropertyListError) -> Data {
        Data(try encoded(as: format, options: options))
    }
}

extension PropertyList: CustomStringConvertible {
    /// The description that macOS prints for a property list (`defaults read`):
    /// `{ key = value; }`, `( a, b )`, four-space indentation.
    ///
    /// ```swift
    /// let v: PropertyList = ["Name": "Ada", "Sizes": [1, 2]]
    /// print(v)
    /// // {
    /// //     Name = Ada;
    /// //     Sizes =     (
    /// //         1,
    /// //         2
    /// //     );
    /// // }
    /// ```
    public var description: String {
        String(decoding: DescriptionWriter.write(self), as: UTF8.self)
    }

    /// Options for ``description(options:)``.
    public struct DescriptionOptions: Sendable, Hashable {
        /// Write non-ASCII characters as escapes, as macOS does.
        public var escapeNonASCII: Bool
        /// Write every byte of data instead of `{length = N, bytes = 0x… ... }`.
        public var fullData: Bool
        /// Creates options; the defaults give macOS's output.
        public init(escapeNonASCII: Bool = true, fullData: Bool = false) {
            self.escapeNonASCII = escapeNonASCII
            self.fullData = fullData
        }
    }

    /// The macOS description, with options.
    ///
    /// ```swift
    /// PropertyList("Mise à jour").description(options: .init(escapeNonASCII: false))  // "Mise à jour"
    /// ```
    public func description(options: DescriptionOptions) -> String {
        String(decoding: DescriptionWriter.write(
            self, options: .init(escapeNonASCII: options.escapeNonASCII, fullData: options.fullData)), as: UTF8.self)
    }
}

extension PropertyList {
    /// Reads one key of a property list whose top object is a dictionary.
    ///
    /// A binary property list is searched in place: keys are compared where
    /// they lie and only the value found is decoded, so reading one key of a
    /// 100,000-key file costs a scan of its keys, not a decode of the whole.
    /// Other formats are decoded whole. When a key appears more than once, the
    /// last wins, as in a full decode.
    ///
    /// ```swift
    /// let volume = try PropertyList.value(forKey: "Volume", decoding: bytes)  // nil when absent
    /// ```
    /// - Throws: ``PropertyListError`` when the bytes are not a property list,
    ///   or its top object is not a dictionary. Objects the search does not
    ///   touch are not checked; decode the whole to validate a file.
    public static func value(forKey key: String, decoding bytes: some ContiguousBytes) throws(PropertyListError) -> PropertyList? {
        let result: Result<PropertyList?, PropertyListError> = bytes.withUnsafeBytes { raw in
            Result { () throws(PropertyListError) -> PropertyList? in try value(forKey: key, decoding: raw) }
        }
        return try result.get()
    }

    /// The value of `key` in the top-level dictionary of the property list
    /// in `raw`, searched in place as by the overload over `ContiguousBytes`.
    ///
    /// Not generic: a cold process (`defaults read D K`) makes no generic
    /// type at run time here, which would cost a scan of every protocol
    /// conformance in the binary.
    public static func value(forKey key: String, decoding raw: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyList? {
        let format = PropertyListFormat.detect(raw)
        if format == .binary, let found = try BinaryReader.lookup(key, in: raw) { return found }
        let (value, read) = try decode(raw: raw, format: nil, options: DecodingOptions())
        guard case .dictionary(let d) = value else {
            throw PropertyListError(format: read, location: .whole, reason: "expected a dictionary as the top object")
        }
        return d[key]
    }
}
