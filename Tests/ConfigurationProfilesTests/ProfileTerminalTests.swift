import Foundation
import PropertyList
import Testing
import TestSupport

/// Issue 37 items 7 and 12: text from a profile never drives the terminal of whoever reads it,
/// and one profile cannot touch more domains than the stated bound.
@Suite("Configuration profiles: hostile text and size", .timeLimit(.minutes(5)))
struct ProfileTerminalTests {
    /// ESC with a clipboard write (OSC 52) and a title, a C1 CSI, a right-to-left override.
    static let hostile = "Corp\u{1B}]52;c;ZXZpbA==\u{07}\u{1B}]0;owned\u{07}\u{9B}2J\u{202E}gnp.exe"

    static func rawControls(_ text: String) -> [UInt32] {
        text.unicodeScalars.map(\.value).filter { ($0 < 0x20 && $0 != 0x0A && $0 != 0x09) || (0x7F..<0xA0).contains($0) || $0 == 0x202E }
    }

    @Test("show, validate, install, list and status print a profile's names, keys and values escaped", .requires(.root))
    func escaped() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let profile = profileDictionary("com.example.hostile\u{1B}[31m", [customPayload("com.example.app", [LiteralString(Self.hostile): .string(Self.hostile)])],
                                        name: Self.hostile)
        let path = try box.write(profile, name: "hostile.mobileconfig")
        for verb in [["show", "--path", path], ["validate", "--path", path], ["install", "--path", path], ["list"], ["status"],
                     ["show", "--identifier", "com.example.hostile\u{1B}[31m"]] {
            let r = try box.profiles(verb)
            #expect(Self.rawControls(r.stdout + r.stderr).isEmpty, "\(verb[0]) printed raw controls: \(Self.rawControls(r.stdout + r.stderr))")
        }
        let shown = try box.profiles(["show", "--path", path])
        #expect(shown.stdout.contains("Corp\\u{1B}]52;c;ZXZpbA==\\u{7}") && shown.stdout.contains("\\u{202E}gnp.exe"), "\(shown.stdout)")
        // `defaults write` of the forced key names the profile, escaped too.
        let write = try box.defaults(["write", "com.example.app", Self.hostile, "mine"])
        #expect(Self.rawControls(write.stdout + write.stderr).isEmpty, "\(write.stderr)")
    }

    @Test("a profile setting more than 1,000 domains is refused, naming the bound", .offThePool)
    func tooManyDomains() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let payloads = (0...1_000).map { customPayload("com.example.d\($0)", ["k": 1]) }
        let path = try box.write(profileDictionary("com.example.many", payloads), name: "many.mobileconfig")
        let r = try box.profiles(["validate", "--path", path])
        #expect(r.status == 1 && r.stderr.contains("1001 domains") && r.stderr.contains("at most 1000"), "\(r.stdout)\(r.stderr)")
    }
}
