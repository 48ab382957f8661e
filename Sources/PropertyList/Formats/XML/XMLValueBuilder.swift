/// What ``XMLReader`` makes of the elements it reads.
///
/// The reader scans the markup, checks it and decodes each element's content
/// (text with its entities, numbers, dates, base64); a builder turns each of
/// those into its own kind of value. Two builders exist: ``PropertyListBuilder``
/// makes the public tree, and ``BinaryFromXML`` makes the compact nodes that a
/// binary file is written from without the tree (`plutil -convert binary1`).
/// Both see the same calls for the same document, so whatever one accepts, the
/// other accepts too.
protocol XMLValueBuilder {
    associatedtype Value
    associatedtype Key

    /// A `<string>`'s text, or nil when the bytes are not UTF-8 (never for
    /// empty text: the reader makes `<string/>` so).
    mutating func string(_ text: UnsafeRawBufferPointer) -> Value?
    /// A `<key>`'s text, or nil when the bytes are not UTF-8 (never for empty text).
    mutating func key(_ text: UnsafeRawBufferPointer) -> Key?
    /// The key as text, for an error message.
    func description(of key: Key) -> String

    mutating func integer(_ n: PropertyList.Integer) -> Value
    mutating func real(_ d: Double) -> Value
    mutating func boolean(_ b: Bool) -> Value
    /// A date as seconds since 2001-01-01 00:00:00 UTC.
    mutating func date(_ t: Double) -> Value
    /// A `<data>`'s base64 text (``Base64/decode(_:)`` reads it).
    mutating func data(base64 text: UnsafeRawBufferPointer) -> Value

    /// `fingerprint` with one more key's text mixed in, as the document
    /// spells it: what the builder identifies a dictionary's keys by before
    /// reading them (``RecurringKeys/fingerprint(_:adding:)``), or 0 for a
    /// builder that does not.
    static func fingerprint(_ fingerprint: UInt64, adding keyText: UnsafeRawBufferPointer) -> UInt64

    /// The array of the elements on `stack` from `base`, taken off it.
    mutating func array(taking stack: inout [Value], from base: Int) -> Value
    /// The dictionary of the entries on `stack` from `base`, taken off it
    /// (a repeated key keeps the value met last), whose keys' text has
    /// `fingerprint` (``fingerprint(_:adding:)``). A dictionary
    /// holding only the key `CF$UID` and an integer up to 2³²−1 is a keyed
    /// archive's UID instead.
    mutating func dictionary(taking stack: inout [(Key, Value)], from base: Int, fingerprint: UInt64) -> Value
}
