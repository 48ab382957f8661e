import NIOCore
import PostgresNIO

/// A one-dimensional array parameter in PostgreSQL's binary form, built as its elements are
/// appended. A group's write binds 23 arrays (``GroupWriteStatement``); postgres-nio's own
/// array encoding takes each element through a protocol witness, and wants each `bytea` as a
/// `ByteBuffer` of its own. Here each element's length and bytes are written once, into one
/// buffer, and the whole is copied into the statement's message.
///
/// ```swift
/// var keys = BinaryArray<String>()
/// keys.append("volume")
/// bindings.append(keys)   // a text[] of one element
/// ```
struct BinaryArray<Element: BinaryArrayElement>: PostgresNonThrowingEncodable, Sendable {
    static var psqlType: PostgresDataType { Element.arrayType }
    static var psqlFormat: PostgresFormat { .binary }

    /// The elements appended so far.
    private(set) var count = 0
    /// Each element as its length (big-endian, 32 bits) and its bytes.
    private var elements = ByteBuffer()

    init() {}

    mutating func append(_ element: Element) {
        element.writeElement(into: &elements)
        count += 1
    }

    var isEmpty: Bool { count == 0 }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // Dimensions (none when empty), no nulls, the element's type; then the one dimension's
        // length and lower bound, and the elements (as postgres-nio writes an array).
        buffer.writeInteger(isEmpty ? 0 : 1, as: UInt32.self)
        buffer.writeInteger(0, as: Int32.self)
        buffer.writeInteger(Element.elementType.rawValue)
        guard !isEmpty else { return }
        buffer.writeInteger(Int32(count))
        buffer.writeInteger(1, as: Int32.self)
        buffer.writeImmutableBuffer(elements)
    }
}

/// A value that ``BinaryArray`` can hold: its PostgreSQL types and its binary form.
protocol BinaryArrayElement: Sendable {
    static var elementType: PostgresDataType { get }
    static var arrayType: PostgresDataType { get }
    /// Writes the element's length (32 bits, big-endian) and its bytes.
    func writeElement(into buffer: inout ByteBuffer)
}

extension String: BinaryArrayElement {
    static var elementType: PostgresDataType { .text }
    static var arrayType: PostgresDataType { .textArray }
    func writeElement(into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int32(utf8.count))
        buffer.writeString(self)
    }
}

/// An integer element: its width, then its bytes (big-endian).
protocol IntegerArrayElement: BinaryArrayElement, FixedWidthInteger {}

extension IntegerArrayElement {
    func writeElement(into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int32(MemoryLayout<Self>.size))
        buffer.writeInteger(self)
    }
}

extension Int64: IntegerArrayElement {
    static var elementType: PostgresDataType { .int8 }
    static var arrayType: PostgresDataType { .int8Array }
}

extension Int32: IntegerArrayElement {
    static var elementType: PostgresDataType { .int4 }
    static var arrayType: PostgresDataType { .int4Array }
}

extension Bool: BinaryArrayElement {
    static var elementType: PostgresDataType { .bool }
    static var arrayType: PostgresDataType { .boolArray }
    func writeElement(into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int32(1))
        buffer.writeInteger(self ? 1 : 0, as: UInt8.self)
    }
}

/// A `bytea` element: the bytes as they are.
struct ByteaElement: BinaryArrayElement {
    static var elementType: PostgresDataType { .bytea }
    static var arrayType: PostgresDataType { .byteaArray }
    let bytes: [UInt8]
    func writeElement(into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int32(bytes.count))
        buffer.writeBytes(bytes)
    }
}
