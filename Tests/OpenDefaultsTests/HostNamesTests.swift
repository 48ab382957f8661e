import Testing
@testable import PlatformIO

@Suite("A Host header's name")
struct HostNamesTests {
    @Test("names, ports, brackets and refusals, in ASCII and not")
    func examples() {
        #expect(HostNames.name(ofHostHeader: "127.0.0.1:8080") == "127.0.0.1")
        #expect(HostNames.name(ofHostHeader: "LocalHost") == "localhost")
        #expect(HostNames.name(ofHostHeader: "localhost.:80") == "localhost")
        #expect(HostNames.name(ofHostHeader: "[::1]:8080") == "[::1]")
        #expect(HostNames.name(ofHostHeader: "[::1]") == "[::1]")
        #expect(HostNames.name(ofHostHeader: "[::1") == nil)
        #expect(HostNames.name(ofHostHeader: "[::1]x") == nil)
        #expect(HostNames.name(ofHostHeader: "evil.example:80:80") == nil)
        #expect(HostNames.name(ofHostHeader: "host:") == nil)
        #expect(HostNames.name(ofHostHeader: "host:8o") == nil)
        #expect(HostNames.name(ofHostHeader: ":80") == nil)
        #expect(HostNames.name(ofHostHeader: "") == nil)
        #expect(HostNames.name(ofHostHeader: "user@host") == nil)
        #expect(HostNames.name(ofHostHeader: "a b") == nil)
        #expect(HostNames.name(ofHostHeader: "a/b") == nil)
        // Not ASCII: read on Characters (Unicode lowercasing).
        #expect(HostNames.name(ofHostHeader: "ÉCOLE.example:443") == "école.example")
        #expect(HostNames.name(ofHostHeader: "e\u{301}.example") == "e\u{301}.example")
    }

    @Test("read on bytes, an ASCII header has the name its Characters give (100,000 random headers)")
    func bytesAgreeWithCharacters() {
        let alphabet = Array("[]:.@/ aZ09\r\n".utf8)
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<100_000 {
            let bytes = (0..<Int.random(in: 0...8, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            let header = String(decoding: bytes, as: UTF8.self)
            var copy = header
            let fast = copy.withUTF8 { HostNames.asciiName(ofHostHeader: $0) }
            #expect(fast == .some(HostNames.characterName(ofHostHeader: header)), "\(Array(header.utf8))")
        }
    }
}
