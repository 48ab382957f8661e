#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

/// A fleet document's dictionary (a declaration, a hand-over, a credential), read field by field:
/// a field that is missing or of another type is refused as ``FleetError/Kind/malformed``,
/// naming the document and the field.
///
/// ```swift
/// let fields = try FleetFields(bytes, document: "the hand-over")
/// let sequence = try fields.positiveInteger("Sequence")
/// ```
struct FleetFields {
    let values: [LiteralString: PropertyList]
    let document: String

    init(_ values: [LiteralString: PropertyList], document: String) {
        self.values = values
        self.document = document
    }

    /// The dictionary of a binary property list.
    init(_ bytes: [UInt8], document: String) throws(FleetError) {
        let value: PropertyList
        do { value = try PropertyList(decoding: bytes, format: .binary) } catch {
            throw FleetError(.malformed, "\(document) is not a property list: \(error)")
        }
        guard case .dictionary(let d) = value else { throw FleetError(.malformed, "\(document) is not a dictionary") }
        self.init(d, document: document)
    }

    func missing(_ key: LiteralString, _ kind: String) -> FleetError {
        FleetError(.malformed, "\(document)'s \(key.string) is missing or not \(kind)")
    }

    func string(_ key: LiteralString) throws(FleetError) -> String {
        guard case .string(let s)? = values[key] else { throw missing(key, "a string") }
        return s
    }

    func positiveInteger(_ key: LiteralString) throws(FleetError) -> Int64 {
        guard case .integer(let n)? = values[key], let v = n.int64Value, v >= 1 else { throw missing(key, "a positive integer") }
        return v
    }

    func date(_ key: LiteralString) throws(FleetError) -> Date {
        guard case .date(let d)? = values[key] else { throw missing(key, "a date") }
        return d
    }

    func data(_ key: LiteralString) throws(FleetError) -> [UInt8] {
        guard case .data(let d)? = values[key] else { throw missing(key, "data") }
        return Array(d)
    }

    func array(_ key: LiteralString) throws(FleetError) -> [PropertyList] {
        guard case .array(let a)? = values[key] else { throw missing(key, "an array") }
        return a
    }

    /// Refused unless `Kind` is `kind`.
    func expectKind(_ kind: String) throws(FleetError) {
        guard try string("Kind") == kind else { throw FleetError(.malformed, "\(document)'s Kind is not \(kind)") }
    }
}
