import Foundation
import PropertyList

extension PropertyList {
    /// Converts a Foundation-style value (`String`, `NSNumber`, `Int`,
    /// `Double`, `Bool`, `Date`, `Data`, `URL`, arrays and `[String: Any]`
    /// dictionaries of those) into a typed value.
    ///
    /// This is the edge where `Any` is allowed: everything inside OpenDefaults
    /// uses the typed value.
    ///
    /// ```swift
    /// let value = try PropertyList(bridging: ["name": "Ada", "age": 36] as [String: Any])
    /// ```
    /// - Throws: ``PropertyListError`` naming the key path and the type of
    ///   the first value that is not a property-list value.
    public init(bridging value: Any) throws(PropertyListError) {
        self = try Self.bridge(value, path: "")
    }

    private static func bridge(_ value: Any, path: String) throws(PropertyListError) -> PropertyList {
        func child(_ key: String) -> String { path.isEmpty ? key : path + "." + key }
        switch value {
        case let v as PropertyList: return v
        case let v as String: return .string(v)
        case let v as Bool where type(of: value) == Bool.self: return .boolean(v)
        case let v as Int where type(of: value) == Int.self: return PropertyList(v)
        case let v as Int64 where type(of: value) == Int64.self: return PropertyList(v)
        case let v as Int32 where type(of: value) == Int32.self: return PropertyList(Int64(v))
        case let v as Int16 where type(of: value) == Int16.self: return PropertyList(Int64(v))
        case let v as Int8 where type(of: value) == Int8.self: return PropertyList(Int64(v))
        case let v as UInt where type(of: value) == UInt.self: return PropertyList(UInt64(v))
        case let v as UInt64 where type(of: value) == UInt64.self: return PropertyList(v)
        case let v as UInt32 where type(of: value) == UInt32.self: return PropertyList(UInt64(v))
        case let v as UInt16 where type(of: value) == UInt16.self: return PropertyList(UInt64(v))
        case let v as UInt8 where type(of: value) == UInt8.self: return PropertyList(UInt64(v))
        case let v as Double where type(of: value) == Double.self: return .real(v)
        case let v as Float where type(of: value) == Float.self: return .real(Double(v))
        case let v as NSNumber: return bridge(number: v)
        case let v as Date: return .date(v)
        case let v as Data: return .data(v)
        case let v as URL: return .string(v.isFileURL ? v.path : v.absoluteString)
        case let v as [Any]:
            var out: [PropertyList] = []
            out.reserveCapacity(v.count)
            for (k, e) in v.enumerated() { out.append(try bridge(e, path: child(String(k)))) }
            return .array(out)
        case let v as [String: Any]:
            var out: [String: PropertyList] = [:]
            out.reserveCapacity(v.count)
            for (k, e) in v { out[k] = try bridge(e, path: child(k)) }
            return .dictionary(out)
        case let v as NSDictionary:
            var out: [String: PropertyList] = [:]
            for (k, e) in v {
                guard let key = k as? String else {
                    throw PropertyListError(format: nil, location: .keyPath(path),
                        reason: "dictionary keys must be strings, found a key of type \(type(of: k))")
                }
                out[key] = try bridge(e, path: child(key))
            }
            return .dictionary(out)
        default:
            throw PropertyListError(format: nil, location: .keyPath(path),
                reason: "a value of type \(type(of: value)) is not a property-list value (expected a string, number, boolean, date, data, array or dictionary)")
        }
    }

    private static func bridge(number n: NSNumber) -> PropertyList {
        let type = String(cString: n.objCType)
        switch type {
        case "B": return .boolean(n.boolValue)
        case "c" where n === (true as NSNumber) || n === (false as NSNumber): return .boolean(n.boolValue)
        case "f", "d": return .real(n.doubleValue)
        case "Q", "L", "I", "S", "C": return PropertyList(n.uint64Value)
        default: return PropertyList(n.int64Value)
        }
    }

    /// The value as Foundation's bridged types: `String`, `Int` (or `UInt64`
    /// above `Int.max`), `Double`, `Bool`, `Date`, `Data`, `[Any]`,
    /// `[String: Any]`; a UID as `["CF$UID": n]`.
    ///
    /// ```swift
    /// let any = PropertyList(["a": 1]).bridgedValue as? [String: Any]
    /// ```
    public var bridgedValue: Any {
        switch self {
        case .string(let s): return s
        case .integer(let n):
            if let i = n.int64Value { return Int(i) }
            return n.uint64Value!
        case .real(let d): return d
        case .boolean(let b): return b
        case .date(let d): return d
        case .data(let d): return d
        case .uid(let u): return ["CF$UID": Int(u)] as [String: Any]
        case .array(let a): return a.map(\.bridgedValue)
        case .dictionary(let d): return d.mapValues(\.bridgedValue)
        }
    }
}
