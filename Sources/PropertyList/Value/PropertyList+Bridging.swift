#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PropertyList {
    /// Converts a value typed `Any` — `String`, `Bool`, any integer type,
    /// `Double`, `Float`, `Date`, `Data`, `URL`, `PropertyList`, arrays and
    /// `[String: Any]` dictionaries of those — into a typed value.
    ///
    /// This is the edge where `Any` is allowed (APIs shaped like
    /// Foundation's `[String: Any]`); everything inside uses the typed value.
    /// Class instances that conform to ``PropertyListBridgeable`` convert
    /// themselves (`OpenDefaultsFoundation` conforms Foundation's `NSNumber`,
    /// `NSString`, `NSData`, `NSDate`, `NSURL`, `NSArray`, `NSDictionary`,
    /// keeping an `NSNumber`'s boolean or single-precision kind); other
    /// Foundation objects go through Swift's bridging casts.
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
        if type(of: value) is AnyObject.Type, let object = value as? any PropertyListBridgeable {
            do { return try object.propertyListValue() } catch {
                // A container's own elements report paths relative to it.
                guard case .keyPath(let inner) = error.location, !inner.isEmpty else {
                    throw PropertyListError(format: nil, location: .keyPath(path), reason: error.reason)
                }
                throw PropertyListError(format: nil, location: .keyPath(child(inner)), reason: error.reason)
            }
        }
        switch value {
        case let v as PropertyList: return v
        case let v as String: return .string(v)
        case let v as Bool where type(of: value) == Bool.self: return .boolean(v)
        case let v as Int: return PropertyList(v)
        case let v as Int64: return PropertyList(v)
        case let v as Int32: return PropertyList(Int64(v))
        case let v as Int16: return PropertyList(Int64(v))
        case let v as Int8: return PropertyList(Int64(v))
        case let v as UInt: return PropertyList(UInt64(v))
        case let v as UInt64: return PropertyList(v)
        case let v as UInt32: return PropertyList(UInt64(v))
        case let v as UInt16: return PropertyList(UInt64(v))
        case let v as UInt8: return PropertyList(UInt64(v))
        case let v as Double: return .real(v)
        case let v as Float: return .real(Double(v))
        case let v as Date: return .date(v)
        case let v as Data: return .data(v)
        case let v as URL: return .string(v.isFileURL ? v.path : v.absoluteString)
        case let v as [Any]:
            var out: [PropertyList] = []
            out.reserveCapacity(v.count)
            for (k, e) in v.enumerated() { out.append(try bridge(e, path: child(String(k)))) }
            return .array(out)
        case let v as [String: Any]:
            var out: [LiteralString: PropertyList] = [:]
            out.reserveCapacity(v.count)
            for (k, e) in v { out[k] = try bridge(e, path: child(k)) }
            return .dictionary(out)
        default:
            throw PropertyListError(format: nil, location: .keyPath(path),
                reason: "a value of type \(type(of: value)) is not a property-list value (expected a string, number, boolean, date, data, array or dictionary)")
        }
    }

    /// The value as Swift's plain types: `String`, `Int` (or `UInt64` above
    /// `Int.max`), `Double`, `Bool`, `Date`, `Data`, `[Any]`,
    /// `[String: Any]`; a UID as `["CF$UID": n]`.
    ///
    /// ```swift
    /// let v: PropertyList = ["a": 1]
    /// let any = v.bridgedValue as? [String: Any]
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
        case .dictionary(let d): return d.keyedByString(\.bridgedValue)
        }
    }
}
