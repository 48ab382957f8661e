#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `PropertyList` is itself `Codable`: with ``PropertyListValueEncoder`` and
/// ``PropertyListValueDecoder`` it passes through unchanged; with other
/// coders (JSON, say) it encodes as its natural structure (dates and data
/// as the coder encodes `Date` and `Data`; a UID as `{"CF$UID": n}`).
///
/// ```swift
/// struct Envelope: Codable { var payload: PropertyList }
/// ```
extension PropertyList: Codable {
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .array(let a):
            var c = encoder.unkeyedContainer()
            for e in a { try c.encode(e) }
        case .dictionary(let d):
            var c = encoder.container(keyedBy: Key.self)
            for (k, v) in d { try c.encode(v, forKey: Key(k.string)) }
        case .uid(let u):
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(u, forKey: Key("CF$UID"))
        default:
            var c = encoder.singleValueContainer()
            switch self {
            case .string(let s): try c.encode(s)
            case .integer(let n):
                if let i = n.int64Value { try c.encode(i) } else { try c.encode(n.uint64Value!) }
            case .real(let d): try c.encode(d)
            case .boolean(let b): try c.encode(b)
            case .date(let d): try c.encode(d)
            case .data(let d): try c.encode(d)
            default: break
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var d: [LiteralString: PropertyList] = [:]
            for k in keyed.allKeys { d[k.stringValue] = try keyed.decode(PropertyList.self, forKey: k) }
            self = .dictionary(d)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var a: [PropertyList] = []
            while !unkeyed.isAtEnd { a.append(try unkeyed.decode(PropertyList.self)) }
            self = .array(a)
            return
        }
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .boolean(b); return }
        if let i = try? c.decode(Int64.self) { self = PropertyList(i); return }
        if let u = try? c.decode(UInt64.self) { self = PropertyList(u); return }
        if let d = try? c.decode(Double.self) { self = .real(d); return }
        if let s = try? c.decode(String.self) { self = .string(s); return }
        if let d = try? c.decode(Date.self) { self = .date(d); return }
        if let d = try? c.decode(Data.self) { self = .data(d); return }
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a property-list value"))
    }
}
