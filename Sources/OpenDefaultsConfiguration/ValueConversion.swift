import Configuration
import FoundationEssentials
import PropertyList

/// Property-list values as the configuration types a reader asks for.
enum ValueConversion {
    static func content(_ value: PropertyList, as type: ConfigType, key: String) throws -> ConfigContent {
        func fail() -> DefaultsProviderError { DefaultsProviderError(key: key, type: type, value: value) }
        func elements<T>(_ convert: (PropertyList) -> T?) throws -> [T] {
            guard case .array(let a) = value else { throw fail() }
            var out: [T] = []
            out.reserveCapacity(a.count)
            for e in a {
                guard let c = convert(e) else { throw fail() }
                out.append(c)
            }
            return out
        }
        switch type {
        case .string: if let s = string(value) { return .string(s) }
        case .int: if let i = int(value) { return .int(i) }
        case .double: if let d = double(value) { return .double(d) }
        case .bool: if let b = bool(value) { return .bool(b) }
        case .bytes: if let b = bytes(value) { return .bytes(b) }
        case .stringArray: return .stringArray(try elements(string))
        case .intArray: return .intArray(try elements(int))
        case .doubleArray: return .doubleArray(try elements(double))
        case .boolArray: return .boolArray(try elements(bool))
        case .byteChunkArray: return .byteChunkArray(try elements(bytes))
        }
        throw fail()
    }

    static func trimmed(_ s: String) -> Substring {
        s.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed().reduce(into: Substring()) { $0.append($1) }
    }

    static func string(_ v: PropertyList) -> String? {
        switch v {
        case .string(let s): s
        case .integer(let n): n.description
        case .real(let d): "\(d)"
        default: nil
        }
    }

    static func int(_ v: PropertyList) -> Int? {
        switch v {
        case .integer(let n): n.int64Value.flatMap { Int(exactly: $0) }
        case .real(let d): Int(exactly: d)
        case .string(let s): Int(trimmed(s))
        default: nil
        }
    }

    static func double(_ v: PropertyList) -> Double? {
        switch v {
        case .real(let d): d
        case .integer(let n): n.doubleValue
        case .string(let s): Double(trimmed(s))
        default: nil
        }
    }

    static func bool(_ v: PropertyList) -> Bool? {
        switch v {
        case .boolean(let b): return b
        case .integer(let n):
            switch n.int64Value { case 0?: return false; case 1?: return true; default: return nil }
        case .string(let s):
            switch s.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: return nil
            }
        default: return nil
        }
    }

    static func bytes(_ v: PropertyList) -> [UInt8]? {
        switch v {
        case .data(let d): Array(d)
        case .string(let s): Data(base64Encoded: s).map(Array.init)
        default: nil
        }
    }
}
