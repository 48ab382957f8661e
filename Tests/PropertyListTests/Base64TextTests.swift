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
}
