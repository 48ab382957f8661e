import ConfigurationProfiles
import Foundation
import PropertyList
import Testing
import TestSupport

/// What an administrator met in their first hour with `profiles` (issue 38):
/// macOS's spellings, typos that set nothing, a root the library will not trust.
@Suite("profiles: the first hour", .offThePool, .timeLimit(.minutes(10)))
struct ProfileFirstHourTests {
    @Test("macOS's one-dash spellings (-path, -identifier, -user, -output, -all) mean the options; other one-dash words are refused with a reason", .requires(.root))
    func macOSSpellings() throws {
        let box = try ProfileSandbox()
        let path = try box.write(profileDictionary("com.example.dash", [customPayload("com.example.dash", ["Volume": 3])]), name: "dash.mobileconfig")
        let installed = try box.profiles(["install", "-path", path])
        #expect(installed.status == 0 && installed.stdout.hasPrefix("Installed com.example.dash"), "\(installed.stdout)\(installed.stderr)")
        #expect(try box.defaults(["read", "com.example.dash", "Volume"]).stdout == "3\n")
        let listed = try box.profiles(["list", "-all", "-output", "json"])
        #expect(listed.status == 0 && listed.stdout.contains("com.example.dash"), "\(listed.stderr)")
        #expect(try box.profiles(["validate", "-path", path]).status == 0)
        let removed = try box.profiles(["remove", "-identifier", "com.example.dash"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try box.defaults(["read", "com.example.dash", "Volume"]).status == 1)
        // Unknown: refused, with what was probably meant; nothing is installed, help is not printed.
        for (words, problem) in [(["install", "-pth", path], "unknown option '-pth'; did you mean '-path'?"),
                                 (["install", "-type", "enrollment"], "unknown option '-type'")] {
            let r = try box.profiles(words)
            #expect(r.status == 64 && r.stdout.isEmpty, "\(words)")
            #expect(r.stderr.hasPrefix("Error: \(problem)\n"), "\(words): \(r.stderr)")
        }
        #expect(box.indexBytes.map { !String(decoding: $0, as: UTF8.self).contains("com.example.dash") } ?? true)
    }

    @Test("every option of every command, as its help lists it, is also taken with one dash")
    func everyOptionHasItsOneDashSpelling() async throws {
        // About 25 processes: on a thread of their own, not one of the cooperative pool's two.
        try await offThePool { try Self.checkEveryOption() }
    }

    static func checkEveryOption() throws {
        // In a sandbox, and with --help after the option: nothing is installed, applied or written.
        let box = try ProfileSandbox()
        var checked = 0
        for command in ["install", "remove", "list", "show", "validate", "status", "apply"] {
            let help = try runTool("profiles", [command, "--help"]).stdout
            let options = Set(help.matches(of: /--([a-z][a-z-]+)/).map { String($0.output.1) })
            #expect(!options.isEmpty, "\(command)")
            for option in options {
                let r = try box.profiles([command, "-" + option, "--help"])
                #expect(!r.stderr.contains("unknown option '-\(option)'"), "profiles \(command) -\(option): \(r.stderr)")
                checked += 1
            }
        }
        #expect(checked >= 15)
    }

    @Test("a mistyped command is named with the one meant, in every argument-parser tool; exit 64")
    func mistypedCommands() throws {
        for (tool, words, message, usage) in [
            ("profiles", ["instal"], "unknown command 'instal'; did you mean 'install'?", "Usage: profiles <subcommand>"),
            ("settings", ["valdate", "x"], "unknown command 'valdate'; did you mean 'validate'?", "Usage: settings <subcommand>"),
            ("ubiquity", ["sett"], "unknown command 'sett'; did you mean 'set'?", "Usage: ubiquity <subcommand>"),
            ("ubiquity", ["account", "ad", "x"], "unknown command 'ad'; did you mean 'add'?", "Usage: ubiquity account <subcommand>"),
            ("ubiquity", ["frobnicate"], "unknown command 'frobnicate'; the commands are serve, account, check, backup, restore, login, logout, get, set, remove, list, watch, sync, org, policy, enroll, agent", "Usage: ubiquity <subcommand>"),
        ] {
            let r = try runTool(tool, words)
            #expect(r.status == 64, "\(tool) \(words)")
            #expect(r.stderr.hasPrefix("Error: \(message)\n\(usage)\n"), "\(tool) \(words): \(r.stderr)")
        }
        // A mistyped option: argument-parser's own suggestion.
        let option = try runTool("settings", ["serve", "--bundel", "x"])
        #expect(option.status == 64 && option.stderr.contains("Unknown option '--bundel'. Did you mean '--bundle'?"), "\(option.stderr)")
    }

    @Test("an argument that is not UTF-8 is refused by the argument-parser tools, exit 64")
    func nonUTF8() throws {
        let r = try runProcess("/bin/sh", ["-c", #""$0" validate --path "$(printf 'p\377.mobileconfig')""#, productsDirectory.appendingPathComponent("profiles").path])
        let text = r.stderr
        #expect(r.status == 64)
        #expect(text.hasPrefix("Error: argument 3 is not UTF-8 text (byte 2 is not valid UTF-8)"), "\(text)")
    }

    /// A profile whose preferences payload's type has a typo, and one whose level is lowercase.
    static let typos: [LiteralString: PropertyList] = profileDictionary("com.example.typos", [
        [
            "PayloadType": "com.apple.ManagedClient.preference", "PayloadIdentifier": "p1", "PayloadUUID": "U1",
            "PayloadContent": ["com.example.app": ["Forced": [["mcx_preference_settings": ["Volume": 3]]]]],
        ],
        [
            "PayloadType": "com.apple.ManagedClient.preferences", "PayloadIdentifier": "p2", "PayloadUUID": "U2",
            "PayloadContent": ["com.example.app": ["forced": [["mcx_preference_settings": ["Volume": 3]]]]],
        ],
    ])

    @Test("validate warns of each payload and key it did not understand, with what was meant; --strict refuses")
    func validateWarns() throws {
        let box = try ProfileSandbox()
        let path = try box.write(Self.typos, name: "typos.mobileconfig")
        let r = try box.profiles(["validate", "--path", path])
        #expect(r.status == 0)
        #expect(r.stderr == """
            profiles: \(path): warning: PayloadContent[0] (com.apple.ManagedClient.preference): sets nothing (a payload of a preference domain's type sets the keys beside its Payload… keys; it has none); did you mean the payload type com.apple.ManagedClient.preferences?
            profiles: \(path): warning: PayloadContent[1] (com.apple.ManagedClient.preferences) › com.example.app › forced: not understood (a domain's keys are Forced, Set-Once and Often); did you mean Forced?
            profiles: \(path): warning: it sets no preferences on this system

            """, "\(r.stderr)")
        #expect(r.stdout == "\(path): valid: 0 forced keys in 0 domains, 0 set-once keys in 0 domains (it sets no preferences here), 3 warnings; signature: Unsigned\n", "\(r.stdout)")
        let strict = try box.profiles(["validate", "--strict", "--path", path])
        #expect(strict.status == 1 && strict.stdout.isEmpty)
        #expect(strict.stderr.contains("error: PayloadContent[0]") && strict.stderr.hasSuffix("profiles: \(path): not valid with --strict (3 problems)\n"), "\(strict.stderr)")
        // A clean profile passes --strict.
        let clean = try box.write(profileDictionary("com.example.clean", [customPayload("com.example.app", ["Volume": 3])]), name: "clean.mobileconfig")
        let ok = try box.profiles(["validate", "--strict", "--path", clean])
        #expect(ok.status == 0 && ok.stderr.isEmpty, "\(ok.stderr)")
    }

    @Test("install refuses a profile that sets nothing because of what it did not understand; nothing is installed", .requires(.root))
    func installRefusesTypos() throws {
        let box = try ProfileSandbox()
        let path = try box.write(Self.typos, name: "typos.mobileconfig")
        let r = try box.profiles(["install", "--path", path])
        #expect(r.status == 1 && r.stdout.isEmpty)
        #expect(r.stderr.hasSuffix("profiles: \(path): nothing was installed: the profile sets no preferences on this system, and 2 things in it were not understood (above)\n"), "\(r.stderr)")
        #expect(box.indexBytes.map { !String(decoding: $0, as: UTF8.self).contains("com.example.typos") } ?? true)
    }

    @Test("install into a system root the library would not trust (writable by others) is refused with the reason; nothing is installed", .requires(.root))
    func untrustedRoot() throws {
        let box = try ProfileSandbox()
        let path = try box.write(profileDictionary("com.example.open", [customPayload("com.example.open", ["Volume": 3])]), name: "open.mobileconfig")
        chmod(box.root, 0o777)
        defer { chmod(box.root, 0o755) }
        let r = try box.profiles(["install", "--path", path])
        #expect(r.status == 1)
        #expect(r.stderr == "profiles: \(path): \(box.managed): is not trusted, so no program would obey a profile installed there: \(box.root) is writable by group or others, so anyone could replace what is in it; nothing was installed\n", "\(r.stderr)")
        #expect(box.indexBytes == nil)
        // The same root, trusted again: installed, and obeyed.
        chmod(box.root, 0o755)
        #expect(try box.profiles(["install", "--path", path]).status == 0)
        #expect(try box.defaults(["read", "com.example.open", "Volume"]).stdout == "3\n")
    }
}

/// The limits a profile reader states, each at its boundary: a figure that moves fails here.
@Suite("Configuration profiles: limits at their boundaries", .offThePool, .timeLimit(.minutes(10)))
struct ProfileLimitTests {
    /// A profile's XML, padded with a string so that it is exactly `size` bytes.
    static func profile(ofSize size: Int) throws -> [UInt8] {
        func encoded(_ padding: Int) throws -> [UInt8] {
            try PropertyList.dictionary(profileDictionary("com.example.size", [
                customPayload("com.example.size", ["Pad": .string(String(repeating: "x", count: padding))]),
            ])).encoded(as: .xml)
        }
        let base = try encoded(0).count
        let bytes = try encoded(size - base)
        precondition(bytes.count == size)
        return bytes
    }

    @Test("a profile of exactly 16 MiB is read; one byte more is refused, naming the limit")
    func sixteenMiB() throws {
        #expect(ConfigurationProfile.maximumSize == 16 << 20)
        let largest = try ConfigurationProfile(bytes: Self.profile(ofSize: 16 << 20))
        #expect(largest.preferences.forced["com.example.size"]?["Pad"] != nil)
        #expect {
            try ConfigurationProfile(bytes: Self.profile(ofSize: (16 << 20) + 1))
        } throws: { error in
            "\(error)" == "\((16 << 20) + 1) bytes: larger than the 16 MiB a profile may be"
        }
    }

    @Test("a profile may set at most 1,000 domains")
    func thousandDomains() throws {
        func profile(domains: Int) -> [UInt8] {
            let payloads = (0..<domains).map { customPayload("com.example.d\($0)", ["k": 1]) }
            return try! PropertyList.dictionary(profileDictionary("com.example.many", payloads)).encoded(as: .xml)
        }
        #expect(try ConfigurationProfile(bytes: profile(domains: 1_000)).preferences.forced.count == 1_000)
        #expect(throws: ProfileError.self) { try ConfigurationProfile(bytes: profile(domains: 1_001)) }
    }
}
