import Foundation
import Testing
@testable import PropertyList

@Suite("Base64 as the sync protocol writes values", .timeLimit(.minutes(10)))
struct Base64TextTests {
    @Test("one unbroken run, byte for byte Foundation's base64EncodedString, for every length mod 3 and every byte")
    func sameAsFoundation() {
        var random = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString(), "\(bytes)")
        }
        let all = (0...255).map(UInt8.init)
        #expect(Base64.encode(all) == Data(all).base64EncodedString())
    }

    @Test("in lines as the XML writer lays them out: every line length and indent, every length mod 3, in an array or a ByteOutput")
    func lines() {
        var random = SystemRandomNumberGenerator()
        for lineLength in [1, 2, 3, 4, 5, 7, 16, 17, 60, 68, 76] {
            for indent in 0..<3 {
                for length in [0, 1, 2, 3, 4, 5, 11, 12, 13, 44, 45, 46, 57, 58, 59, 100, 301] {
                    let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
                    // The layout by definition: the unbroken text cut every lineLength characters,
                    // each line after `indent` tabs and ending in a newline.
                    let text = Array(Data(bytes).base64EncodedString().utf8)
                    var expected: [UInt8] = []
                    var k = 0
                    while k < text.count {
                        expected += Array(repeating: 0x09, count: indent) + text[k..<min(k + lineLength, text.count)] + [0x0A]
                        k += lineLength
                    }
                    var array: [UInt8] = []
                    bytes.withUnsafeBytes { Base64.encode($0, lineLength: lineLength, indent: indent, into: &array) }
                    var output = ByteOutput(capacity: 1)
                    bytes.withUnsafeBytes { Base64.encode($0, lineLength: lineLength, indent: indent, into: &output) }
                    #expect(array == expected, "line \(lineLength), indent \(indent), \(length) bytes")
                    #expect(output.bytes() == expected, "line \(lineLength), indent \(indent), \(length) bytes")
                }
            }
        }
    }
}
