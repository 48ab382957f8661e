#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

final class ValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    let userInfoStorage: [CodingUserInfoKey: any Sendable]
    var userInfo: [CodingUserInfoKey: Any] { userInfoStorage }
    let node: EncodingNode

    init(codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable], node: EncodingNode = EncodingNode()) {
        self.codingPath = codingPath
        self.userInfoStorage = userInfo
        self.node = node
    }

    /// Values with a property-list form of their own.
    static func direct(_ value: some Encodable) throws -> PropertyList? {
        switch value {
        case let v as PropertyList: return v
        case let v as Date: return .date(v)
        case let v as Data: return .data(v)
        case let v as URL: return .string(v.absoluteString)
        default: return nil
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.keyed == nil { node.keyed = [:]; node.unkeyed = nil; node.scalar = nil }
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.unkeyed == nil { node.unkeyed = []; node.keyed = nil; node.scalar = nil }
        return UnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(encoder: self) }

    /// Encodes `value` into `child`.
    func encode(_ value: some Encodable, into child: EncodingNode, key: (any CodingKey)?) throws {
        if let direct = try Self.direct(value) { child.setScalar(direct); return }
        let path = key.map { codingPath + [$0] } ?? codingPath
        try value.encode(to: ValueEncoder(codingPath: path, userInfo: userInfoStorage, node: child))
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: ValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        private func child(_ key: Key) -> EncodingNode {
            if let existing = encoder.node.keyed?[key.stringValue] { return existing }
            let n = EncodingNode()
            encoder.node.keyed?[key.stringValue] = n
            return n
        }
        private func set(_ v: PropertyList, _ key: Key) { child(key).setScalar(v) }

        mutating func encodeNil(forKey key: Key) throws {
            // A nil stores nothing: property lists have no null.
        }
        mutating func encode(_ value: Bool, forKey key: Key) throws { set(.boolean(value), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { set(.real(value), key) }
        mutating func encode(_ value: Float, forKey key: Key) throws { set(.real(Double(value)), key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { set(PropertyList(value), key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { set(PropertyList(Int64(value)), key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { set(PropertyList(Int64(value)), key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { set(PropertyList(Int64(value)), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { set(PropertyList(value), key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { set(PropertyList(UInt64(value)), key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { set(PropertyList(UInt64(value)), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { set(PropertyList(UInt64(value)), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { set(PropertyList(UInt64(value)), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { set(PropertyList(value), key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try encoder.encode(value, into: child(key), key: key)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            ValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfoStorage, node: child(key)).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            ValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfoStorage, node: child(key)).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder {
            ValueEncoder(codingPath: codingPath, userInfo: encoder.userInfoStorage, node: child(Key(stringValue: "super")!))
        }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            ValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfoStorage, node: child(key))
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: ValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int {
            encoder.node.unkeyed?.count ?? 0
        }

        private func append() -> EncodingNode {
            let n = EncodingNode()
            encoder.node.unkeyed?.append(n)
            return n
        }
        private func add(_ v: PropertyList) { append().setScalar(v) }
        private var indexKey: IndexKey { IndexKey(count) }

        mutating func encodeNil() throws {
            throw EncodingError.invalidValue(
                Optional<Int>.none as Any,
                .init(codingPath: codingPath + [indexKey], debugDescription: "property lists cannot hold nil in an array"))
        }
        mutating func encode(_ value: Bool) throws { add(.boolean(value)) }
        mutating func encode(_ value: String) throws { add(.string(value)) }
        mutating func encode(_ value: Double) throws { add(.real(value)) }
        mutating func encode(_ value: Float) throws { add(.real(Double(value))) }
        mutating func encode(_ value: Int) throws { add(PropertyList(value)) }
        mutating func encode(_ value: Int8) throws { add(PropertyList(Int64(value))) }
        mutating func encode(_ value: Int16) throws { add(PropertyList(Int64(value))) }
        mutating func encode(_ value: Int32) throws { add(PropertyList(Int64(value))) }
        mutating func encode(_ value: Int64) throws { add(PropertyList(value)) }
        mutating func encode(_ value: UInt) throws { add(PropertyList(UInt64(value))) }
        mutating func encode(_ value: UInt8) throws { add(PropertyList(UInt64(value))) }
        mutating func encode(_ value: UInt16) throws { add(PropertyList(UInt64(value))) }
        mutating func encode(_ value: UInt32) throws { add(PropertyList(UInt64(value))) }
        mutating func encode(_ value: UInt64) throws { add(PropertyList(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            let key = indexKey
            try encoder.encode(value, into: append(), key: key)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let key = indexKey
            return ValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfoStorage, node: append()).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let key = indexKey
            return ValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfoStorage, node: append()).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder {
            let key = indexKey
            return ValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfoStorage, node: append())
        }
    }

    struct SingleContainer: SingleValueEncodingContainer {
        let encoder: ValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        private func set(_ v: PropertyList) { encoder.node.setScalar(v) }

        mutating func encodeNil() throws {
            throw EncodingError.invalidValue(
                Optional<Int>.none as Any, .init(codingPath: codingPath, debugDescription: "property lists cannot hold nil"))
        }
        mutating func encode(_ value: Bool) throws { set(.boolean(value)) }
        mutating func encode(_ value: String) throws { set(.string(value)) }
        mutating func encode(_ value: Double) throws { set(.real(value)) }
        mutating func encode(_ value: Float) throws { set(.real(Double(value))) }
        mutating func encode(_ value: Int) throws { set(PropertyList(value)) }
        mutating func encode(_ value: Int8) throws { set(PropertyList(Int64(value))) }
        mutating func encode(_ value: Int16) throws { set(PropertyList(Int64(value))) }
        mutating func encode(_ value: Int32) throws { set(PropertyList(Int64(value))) }
        mutating func encode(_ value: Int64) throws { set(PropertyList(value)) }
        mutating func encode(_ value: UInt) throws { set(PropertyList(UInt64(value))) }
        mutating func encode(_ value: UInt8) throws { set(PropertyList(UInt64(value))) }
        mutating func encode(_ value: UInt16) throws { set(PropertyList(UInt64(value))) }
        mutating func encode(_ value: UInt32) throws { set(PropertyList(UInt64(value))) }
        mutating func encode(_ value: UInt64) throws { set(PropertyList(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encode(value, into: encoder.node, key: nil) }
    }
}
