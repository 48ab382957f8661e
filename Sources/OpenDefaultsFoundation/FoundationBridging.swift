public import Foundation
public import PropertyList

// Foundation's property-list classes convert themselves when handed over as
// `Any` (`set(_:forKey:)`, `register(defaults:)`, the domain setters), so a
// boolean `NSNumber` stays a boolean and a `Float` one keeps its precision.
// Linking this module is what makes them known: the conformances are found
// at run time by `PropertyList(bridging:)`.

extension NSNumber: PropertyListBridgeable {
    /// The class of Foundation's boolean numbers (`NSNumber(value: true)`).
    private static let booleanClass: AnyClass = type(of: NSNumber(value: true))

    /// The number as a boolean, an integer (signed or unsigned, as made) or a real.
    public func propertyListValue() throws(PropertyListError) -> PropertyList {
        if type(of: self) == NSNumber.booleanClass { return .boolean(boolValue) }
        switch objCType.pointee {
        case CChar(UInt8(ascii: "f")): return .real(Double(floatValue))
        case CChar(UInt8(ascii: "d")): return .real(doubleValue)
        case CChar(UInt8(ascii: "Q")), CChar(UInt8(ascii: "L")), CChar(UInt8(ascii: "I")),
            CChar(UInt8(ascii: "S")), CChar(UInt8(ascii: "C")):
            return PropertyList(uint64Value)
        default: return PropertyList(int64Value)
        }
    }
}

extension NSString: PropertyListBridgeable {
    /// The string.
    public func propertyListValue() throws(PropertyListError) -> PropertyList { .string(String(self)) }
}

extension NSData: PropertyListBridgeable {
    /// The bytes.
    public func propertyListValue() throws(PropertyListError) -> PropertyList { .data(Data(referencing: self)) }
}

extension NSDate: PropertyListBridgeable {
    /// The date.
    public func propertyListValue() throws(PropertyListError) -> PropertyList {
        .date(Date(timeIntervalSinceReferenceDate: timeIntervalSinceReferenceDate))
    }
}

extension NSURL: PropertyListBridgeable {
    /// A file URL as its path, any other URL as its absolute text (as `URL` inside a collection).
    public func propertyListValue() throws(PropertyListError) -> PropertyList {
        if isFileURL, let path { return .string(path) }
        return .string(absoluteString)
    }
}

extension NSArray: PropertyListBridgeable {
    /// The elements, each converted; the first that is not a property-list value is thrown.
    public func propertyListValue() throws(PropertyListError) -> PropertyList {
        var out: [PropertyList] = []
        out.reserveCapacity(count)
        for (i, element) in enumerated() {
            do { out.append(try PropertyList(bridging: element)) } catch {
                throw PropertyListError(format: nil, location: .keyPath(Self.join(String(i), error.location)), reason: error.reason)
            }
        }
        return .array(out)
    }

    static func join(_ head: String, _ location: PropertyListError.Location) -> String {
        if case .keyPath(let inner) = location, !inner.isEmpty { return head + "." + inner }
        return head
    }
}

extension NSDictionary: PropertyListBridgeable {
    /// The entries, each converted; keys must be strings.
    public func propertyListValue() throws(PropertyListError) -> PropertyList {
        var out: [LiteralString: PropertyList] = [:]
        out.reserveCapacity(count)
        for (k, v) in self {
            let key: String
            switch k {
            case let s as String: key = s
            case let s as NSString: key = String(s)
            default:
                throw PropertyListError(format: nil, location: .keyPath(""),
                    reason: "a dictionary key of type \(type(of: k)) is not a string (property-list dictionaries have string keys)")
            }
            do { out[key] = try PropertyList(bridging: v) } catch {
                throw PropertyListError(format: nil, location: .keyPath(NSArray.join(key, error.location)), reason: error.reason)
            }
        }
        return .dictionary(out)
    }
}
