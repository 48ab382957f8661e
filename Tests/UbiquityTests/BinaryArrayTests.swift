import NIOCore
import PostgresNIO
import Testing
@testable import UbiquityPostgres

/// The group statements' array parameters, written as postgres-nio writes its own arrays.
@Suite("An array parameter in PostgreSQL's binary form")
struct BinaryArrayTests {
    /// `values` encoded by postgres-nio's own array encoding.
    static func nio<T: PostgresArrayEncodable>(_ values: [T]) throws -> ByteBuffer {
        var buffer = ByteBuffer()
        try values.encode(into: &buffer, context: .default)
        return buffer
    }

    /// `values` appended to a ``BinaryArray`` and encoded.
    static func ours<T: BinaryArrayElement>(_ values: [T]) -> ByteBuffer {
        var array = BinaryArray<T>()
        for v in values { array.append(v) }
        var buffer = ByteBuffer()
        array.encode(into: &buffer, context: .default)
        return buffer
    }

    @Test("text, bigint, integer and boolean arrays: the same bytes and types as postgres-nio's, empty ones included")
    func sameAsPostgresNIO() throws {
        var generator = SystemRandomNumberGenerator()
        for count in [0, 1, 2, 7, 64] {
            let strings = (0..<count).map { i in String(repeating: ["a", "é", "\u{1F600}", "k"][i % 4], count: Int.random(in: 0...70, using: &generator)) }
            #expect(Self.ours(strings) == (try Self.nio(strings)), "\(count) strings")
            let bigs = (0..<count).map { _ in Int64.random(in: .min ... .max, using: &generator) }
            #expect(Self.ours(bigs) == (try Self.nio(bigs)), "\(count) bigints")
            let ints = (0..<count).map { _ in Int32.random(in: .min ... .max, using: &generator) }
            #expect(Self.ours(ints) == (try Self.nio(ints)), "\(count) integers")
            let bools = (0..<count).map { _ in Bool.random(using: &generator) }
            #expect(Self.ours(bools) == (try Self.nio(bools)), "\(count) booleans")
            let bytes = (0..<count).map { _ in (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) } }
            #expect(Self.ours(bytes.map(ByteaElement.init)) == (try Self.nio(bytes.map { ByteBuffer(bytes: $0) })), "\(count) byte strings")
        }
        #expect(BinaryArray<String>.psqlType == [String].psqlType && BinaryArray<Int64>.psqlType == [Int64].psqlType
                && BinaryArray<Int32>.psqlType == [Int32].psqlType && BinaryArray<Bool>.psqlType == [Bool].psqlType
                && BinaryArray<ByteaElement>.psqlType == [ByteBuffer].psqlType)
        #expect(BinaryArray<String>.psqlFormat == .binary)
    }
}
