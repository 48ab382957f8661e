import PropertyList

/// The JSON objects of the commit path that clients and the server write by hand: a key, one
/// number, and a value left out when there is none.
///
/// A client's change is `{"key":…,"base":…,"value":…}` (``UbiquityCommitRequest/jsonBytes``); the
/// server's entry is `{"key":…,"revision":…,"value":…}` (its `WireJSON`, which writes the keys in
/// `JSONEncoder`'s sorted order, as these are). Strings are escaped as RFC 8259 asks, `/` as it is.
///
/// ```swift
/// var out: [UInt8] = []
/// UbiquityWireJSON.appendObject(key: "a", "base", 3, value: nil, to: &out)   // {"key":"a","base":3}
/// ```
package enum UbiquityWireJSON {
    /// Appends `{"key":key,"<field>":number,"value":value}`, without `value` when it is nil.
    package static func appendObject(key: String, _ field: String, _ number: Int64, value: String?, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"key":"#.utf8)
        JSONEscape.appendQuoted(key, to: &out, escapingSlash: false)
        out.append(contentsOf: #",""#.utf8)
        out.append(contentsOf: field.utf8)
        out.append(contentsOf: #"":"#.utf8)
        out.append(contentsOf: String(number).utf8)
        if let value {
            out.append(contentsOf: #","value":"#.utf8)
            JSONEscape.appendQuoted(value, to: &out, escapingSlash: false)
        }
        out.append(UInt8(ascii: "}"))
    }
}
