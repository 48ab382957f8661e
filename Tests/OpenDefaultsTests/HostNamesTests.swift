import Foundation
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

    @Test("the Host names a server answers: loopback's, its address, the names allowed; on every address without any, the machine's own")
    func answered() throws {
        let loopback: Set<String> = ["127.0.0.1", "localhost", "[::1]"]
        #expect(HostNames.answered(listeningOn: "127.0.0.1", allowed: []) == loopback)
        #expect(HostNames.answered(listeningOn: "192.0.2.7", allowed: ["Sync.Example.com"]) == loopback.union(["192.0.2.7", "sync.example.com"]))
        #expect(HostNames.answered(listeningOn: "2001:db8::7", allowed: []) == loopback.union(["[2001:db8::7]"]))
        // Every address: never "0.0.0.0" itself; with names allowed, those alone.
        #expect(HostNames.answered(listeningOn: "0.0.0.0", allowed: ["sync.example.com"]) == loopback.union(["sync.example.com"]))
        let own = HostNames.answered(listeningOn: "::", allowed: [])
        let hostName = try String(contentsOfFile: "/proc/sys/kernel/hostname", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        #expect(own.isSuperset(of: loopback) && own.contains(hostName) && !own.contains("0.0.0.0") && !own.contains("[::]"), "\(own)")
        #expect(own.allSatisfy { HostNames.name(ofHostHeader: $0) == $0 }, "every name is as a Host header gives it: \(own)")
    }
}
