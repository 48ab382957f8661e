package import PropertyList

/// Property-list values as the JSON that browsers read their policies from:
/// strings, integers, finite reals, booleans, arrays and dictionaries, as
/// Chrome converts a Mac's policy values. Dates, data and keyed-archive UIDs
/// have no JSON policy type and are refused with their place.
///
/// ```swift
/// try PolicyJSON.text(["HomepageLocation": "https://example.com"])   // {"HomepageLocation": "https://example.com"}
/// ```
package enum PolicyJSON {
    /// Where a value has no JSON form (`ManagedBookmarks › [2] › url`), and what it is.
    package struct Unrepresentable: Error, Sendable {
        package var place: [String]
        package var found: String
    }

    /// The JSON text of a dictionary, its keys sorted, ending in a newline.
    package static func text(_ values: [LiteralString: PropertyList]) throws(Unrepresentable) -> [UInt8] {
        try check(.dictionary(values), place: [])
        var out: [UInt8] = []
        ProfileJSON.append(.dictionary(values), to: &out)
        out.append(0x0A)
        return out
    }

    /// Throws where `value` holds something JSON cannot.
    package static func check(_ value: PropertyList, place: [String]) throws(Unrepresentable) {
        switch value {
        case .string, .integer, .boolean: return
        case .real(let d): if !d.isFinite { throw Unrepresentable(place: place, found: "a number that is not finite (\(d))") }
        case .date: throw Unrepresentable(place: place, found: "a date")
        case .data: throw Unrepresentable(place: place, found: "data")
        case .uid: throw Unrepresentable(place: place, found: "a keyed-archive UID")
        case .array(let items): for (i, item) in items.enumerated() { try check(item, place: place + ["[\(i)]"]) }
        case .dictionary(let d): for (k, v) in d { try check(v, place: place + [k.string]) }
        }
    }
}
