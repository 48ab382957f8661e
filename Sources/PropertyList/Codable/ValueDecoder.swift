#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct ValueDecoder: Decoder {
    let value: PropertyList
    let codingPath: [any CodingKey]
    let userInfoStorage: [CodingUserInfoKey: any Sendable]
    var userInfo: [CodingUserInfoKey: Any] { userInfoStorage }

    init(value: PropertyList, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.value = value
        self.codingPath = codingPath
        self.userInfoStorage = userInfo
    }

    func child(_ v: PropertyList, _ key: any CodingKey) -> ValueDecoder {
        ValueDecoder(value: v, codingPath: codingPath + [key], userInfo: userInfoStorage)
    }

    func mismatch<T>(_ type: T.Type) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected \(type), found a \(value.kind.rawValue)"))
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        switch type {
        case is PropertyList.Type: return value as! T
        case is Date.Type:
            guard case .date(let d) = value else { throw mismatch(type) }
            return d as! T
        case is Data.Type:
            guard case .data(let d) = value else { throw mismatch(type) }
            return d as! T
        case is URL.Type:
            guard case .string(let s) = value, let url = URL(string: s) else { throw mismatch(type) }
            return url as! T
        default:
            return try T(from: self)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let d) = value else { throw mismatch([LiteralString: PropertyList].self) }
        return KeyedDecodingContainer(Keyed<Key>(decoder: self, entries: d))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let a) = value else { throw mismatch([PropertyList].self) }
        return Unkeyed(decoder: self, elements: a)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    // MARK: Scalars

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        switch value {
        case .integer(let n):
            if let i = n.int64Value, let v = T(exactly: i) { return v }
            if let u = n.uint64Value, let v = T(exactly: u) { return v }
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(n) does not fit in \(type)"))
        case .real(let d):
            if let v = T(exactly: d) { return v }
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(d) is not a whole number that fits in \(type)"))
        default: throw mismatch(type)
        }
    }

    func double() throws -> Double {
        switch value {
        case .real(let d): return d
        case .integer(let n): return n.doubleValue
        default: throw mismatch(Double.self)
        }
    }

    func bool() throws -> Bool {
        guard case .boolean(let b) = value else { throw mismatch(Bool.self) }
        return b
    }

    func string() throws -> String {
        guard case .string(let s) = value else { throw mismatch(String.self) }
        return s
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: ValueDecoder
        let entries: [LiteralString: PropertyList]
        var codingPath: [any CodingKey] { decoder.codingPath }
        var allKeys: [Key] { entries.keys.compactMap { Key(stringValue: $0.string) } }

        func contains(_ key: Key) -> Bool { entries[key.stringValue] != nil }

        private func child(_ key: Key) throws -> ValueDecoder {
            guard let v = entries[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for key '\(key.stringValue)'"))
            }
            return decoder.child(v, key)
        }

        func decodeNil(forKey key: Key) throws -> Bool { entries[key.stringValue] == nil }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).bool() }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).string() }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).double() }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try child(key).double()) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).integer(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).integer(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).integer(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).integer(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).integer(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).integer(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).integer(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).integer(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).integer(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).integer(type) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decode(type) }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try child(key).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try child(key).unkeyedContainer()
        }
        func superDecoder() throws -> any Decoder {
            decoder.child(entries["super"] ?? .dictionary([:]), IndexKey(0))
        }
        func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let decoder: ValueDecoder
        let elements: [PropertyList]
        var currentIndex = 0
        var codingPath: [any CodingKey] { decoder.codingPath }
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private mutating func next() throws -> ValueDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    PropertyList.self,
                    .init(codingPath: codingPath + [IndexKey(currentIndex)], debugDescription: "the array has only \(elements.count) elements"))
            }
            defer { currentIndex += 1 }
            return decoder.child(elements[currentIndex], IndexKey(currentIndex))
        }

        mutating func decodeNil() throws -> Bool { false }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try next().bool() }
        mutating func decode(_ type: String.Type) throws -> String { try next().string() }
        mutating func decode(_ type: Double.Type) throws -> Double { try next().double() }
        mutating func decode(_ type: Float.Type) throws -> Float { Float(try next().double()) }
        mutating func decode(_ type: Int.Type) throws -> Int { try next().integer(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().integer(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().integer(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().integer(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().integer(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try next().integer(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().integer(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().integer(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().integer(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().integer(type) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { try next() }
    }

    struct Single: SingleValueDecodingContainer {
        let decoder: ValueDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        func decodeNil() -> Bool { false }
        func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool() }
        func decode(_ type: String.Type) throws -> String { try decoder.string() }
        func decode(_ type: Double.Type) throws -> Double { try decoder.double() }
        func decode(_ type: Float.Type) throws -> Float { Float(try decoder.double()) }
        func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
    }
}
