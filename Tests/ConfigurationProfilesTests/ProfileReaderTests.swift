import Foundation
import Testing
import TestSupport
@testable import ConfigurationProfiles
import PropertyList

/// Profiles written here, in both payload styles, and broken ones: what each sets, or where it is wrong.
@Suite("Configuration profiles: reading", .timeLimit(.minutes(10)))
struct ProfileReaderTests {
    static func profile(_ payloads: [PropertyList], scope: String = "System", extra: [LiteralString: PropertyList] = [:]) -> [LiteralString: PropertyList] {
        var p: [LiteralString: PropertyList] = [
            "PayloadType": "Configuration", "PayloadIdentifier": "com.example.profile", "PayloadUUID": "4F0C6A2E-0000-4000-8000-000000000001",
            "PayloadVersion": 1, "PayloadDisplayName": "Example", "PayloadScope": .string(scope), "PayloadContent": .array(payloads),
        ]
        p.merge(extra) { _, new in new }
        return p
    }

    static func read(_ profile: [LiteralString: PropertyList], as format: PropertyListFormat = .xml) throws -> ConfigurationProfile {
        try ConfigurationProfile(bytes: PropertyList.dictionary(profile).encoded(as: format))
    }

    static let stamp = PropertyList.date(Date(timeIntervalSinceReferenceDate: 700_000_000))

    static let mcx: PropertyList = [
        "PayloadType": "com.apple.ManagedClient.preferences", "PayloadIdentifier": "com.example.profile.mcx", "PayloadUUID": "X",
        "PayloadContent": [
            "com.apple.dock": ["Forced": [["mcx_preference_settings": ["tilesize": 48, "autohide": true]]],
                               "Set-Once": [["mcx_data_timestamp": stamp, "mcx_preference_settings": ["orientation": "left"]]]],
            "com.apple.finder": ["Often": [["mcx_preference_settings": ["ShowPathbar": true]]]],
        ],
    ]

    static let custom: PropertyList = [
        "PayloadType": "com.google.Chrome", "PayloadIdentifier": "com.example.profile.chrome", "PayloadUUID": "Y",
        "PayloadEnabled": true, "HomepageLocation": "https://example.com", "RestoreOnStartup": 4,
    ]

    static let wifi: PropertyList = ["PayloadType": "com.apple.wifi.managed", "PayloadIdentifier": "w", "PayloadUUID": "Z", "SSID_STR": "Office"]

    @Test("both payload styles, XML and binary: forced, set-once with its timestamp, often, and what does not apply", arguments: [PropertyListFormat.xml, .binary])
    func bothStyles(format: PropertyListFormat) throws {
        let p = try Self.read(Self.profile([Self.mcx, Self.custom, Self.wifi], scope: "User", extra: ["PayloadRemovalDisallowed": true]), as: format)
        #expect(p.identifier == "com.example.profile" && p.displayName == "Example" && p.scope == .user && p.removalDisallowed && !p.isSigned)
        #expect(p.preferences.forced == ["com.apple.dock": ["tilesize": 48, "autohide": true],
                                         "com.google.Chrome": ["HomepageLocation": "https://example.com", "RestoreOnStartup": 4]])
        #expect(p.preferences.setOnce == ["com.apple.dock": ["orientation": "left"], "com.apple.finder": ["ShowPathbar": true]])
        #expect(p.preferences.setOnceTimestamps == ["com.apple.dock": Self.stamp])
        #expect(p.preferences.often == ["com.apple.finder"])
        #expect(p.preferences.ignoredPayloads == ["com.apple.wifi.managed"])
    }

    @Test("a profile of only other payloads sets nothing here, and says so")
    func onlyOtherPayloads() throws {
        let p = try Self.read(Self.profile([Self.wifi]))
        #expect(p.preferences.isEmpty && p.preferences.ignoredPayloads == ["com.apple.wifi.managed"])
        let text = ProfileJSON.text(p.preferences)
        #expect(text == #"{"forced": {}, "set_once": {}, "ignored_payloads": ["com.apple.wifi.managed"]}"#)
    }

    @Test("a wrong shape anywhere refuses the whole profile, naming the place", arguments: [
        ("Forced", PropertyList.dictionary(["PayloadType": "com.apple.ManagedClient.preferences", "PayloadContent": ["com.apple.dock": ["Forced": ["tilesize": 48]]]]),
         "PayloadContent[1] (com.apple.ManagedClient.preferences) › com.apple.dock › Forced: expected an array, found a dictionary"),
        ("settings", PropertyList.dictionary(["PayloadType": "com.apple.ManagedClient.preferences", "PayloadContent": ["com.apple.dock": ["Set-Once": [["mcx_preference_settings": [1]]]]]]),
         "PayloadContent[1] (com.apple.ManagedClient.preferences) › com.apple.dock › Set-Once[0] › mcx_preference_settings: expected a dictionary, found an array"),
        ("path", PropertyList.dictionary(["PayloadType": "../../etc/passwd", "Key": 1]), "PayloadContent[1]: the preference domain \"../../etc/passwd\" is not a valid domain name"),
        ("type", PropertyList.dictionary(["Key": 1]), "PayloadContent[1] › PayloadType: expected a string, found nothing"),
        ("timestamp", PropertyList.dictionary(["PayloadType": "com.apple.ManagedClient.preferences", "PayloadContent": ["com.apple.dock": ["Set-Once": [["mcx_data_timestamp": "yesterday", "mcx_preference_settings": ["a": 1]]]]]]),
         "PayloadContent[1] (com.apple.ManagedClient.preferences) › com.apple.dock › Set-Once[0] › mcx_data_timestamp: expected a date, found a string"),
    ] as [(String, PropertyList, String)])
    func wrongShapes(name: String, payload: PropertyList, message: String) throws {
        // A good payload first: nothing of it is kept either.
        let error = #expect(throws: ProfileError.self) { try Self.read(Self.profile([Self.custom, payload])) }
        #expect(error?.description.hasPrefix(message) == true, "\(name): \(String(describing: error))")
    }

    @Test("not a profile: another format, another type, no payload array, a bomb")
    func notProfiles() throws {
        #expect(throws: ProfileError.self) { try ConfigurationProfile(bytes: Array(#"{"PayloadType": "Configuration"}"#.utf8)) }
        var wrongType = Self.profile([])
        wrongType["PayloadType"] = "com.apple.dock"
        #expect(throws: ProfileError.self) { try Self.read(wrongType) }
        var noContent = Self.profile([])
        noContent["PayloadContent"] = ["PayloadType": "com.google.Chrome"]
        let e = #expect(throws: ProfileError.self) { try Self.read(noContent) }
        #expect(e?.description == "PayloadContent: expected an array of payloads, found a dictionary")
        // A binary profile whose shared arrays double 40 times: refused as it is read.
        var objects: [[UInt8]] = []
        for k in 0..<40 { objects.append([0xA2, UInt8(k + 1), UInt8(k + 1)]) }
        objects.append([0x08])
        var file = Array("bplist00".utf8), offsets: [UInt8] = []
        for o in objects { offsets.append(UInt8(file.count)); file += o }
        let table = file.count
        file += offsets + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)] + [UInt8](repeating: 0, count: 8)
            + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        let bomb = #expect(throws: ProfileError.self) { try ConfigurationProfile(bytes: file) }
        #expect(bomb?.description.contains("expands to more than") == true, "\(String(describing: bomb))")
    }

    @Test("the tool: show and validate name the file; a 100 MB file is refused without being read")
    func tool() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("profiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("good.mobileconfig").path
        try PropertyList.dictionary(Self.profile([Self.mcx, Self.custom, Self.wifi])).data(as: .xml).write(to: URL(fileURLWithPath: good))
        let valid = try runTool("profiles", ["validate", "--path", good])
        #expect(valid.status == 0 && valid.stdout == "\(good): valid: 4 forced keys in 2 domains, 2 set-once keys in 2 domains, 1 payload not applicable here; signature: Unsigned\n",
                "\(valid.stdout)\(valid.stderr)")
        let shown = try runTool("profiles", ["show", "--path", good])
        #expect(shown.status == 0 && shown.stdout.contains("forced com.google.Chrome:\n    HomepageLocation = https://example.com\n"), "\(shown.stdout)")
        #expect(shown.stdout.contains("signature: Unsigned") && shown.stdout.contains("not applicable here: com.apple.wifi.managed"))
        let huge = folder.appendingPathComponent("huge.mobileconfig").path
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        #expect(truncate(huge, 100 << 20) == 0)
        let refused = try runTool("profiles", ["validate", "--path", huge])
        #expect(refused.status == 1 && refused.stderr.contains(huge) && refused.stderr.contains("104857600 bytes"), "\(refused.stderr)")
        let missing = try runTool("profiles", ["show", "--path", folder.path + "/nothing.mobileconfig"])
        #expect(missing.status == 1 && missing.stderr.contains("nothing.mobileconfig"), "\(missing.stderr)")
    }

    @Test("a profile signed by a throw-away CA (openssl, DER and PEM) is read from inside its signature", .offThePool, .requires(.openssl))
    func signed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("profiles-signed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        try PropertyList.dictionary(Self.profile([Self.custom])).data(as: .xml).write(to: URL(fileURLWithPath: path("p.mobileconfig")))
        let openssl = "/usr/bin/openssl"
        let cert = try runTool(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("key.pem"), "-out", path("cert.pem"),
                                         "-days", "1", "-subj", "/CN=Throw-away profile signer"], absolute: true)
        try #require(cert.status == 0, "\(cert.stderr)")
        for form in ["DER", "PEM"] {
            let signed = path("signed-\(form).mobileconfig")
            let r = try runTool(openssl, ["cms", "-sign", "-nodetach", "-binary", "-in", path("p.mobileconfig"), "-signer", path("cert.pem"),
                                          "-inkey", path("key.pem"), "-outform", form, "-out", signed], absolute: true)
            try #require(r.status == 0, "\(r.stderr)")
            let p = try ConfigurationProfile(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: signed))))
            #expect(p.isSigned && p.preferences.forced == ["com.google.Chrome": ["HomepageLocation": "https://example.com", "RestoreOnStartup": 4]], "\(form)")
            let shown = try runTool("profiles", ["show", "--path", signed])
            // Signed by a certificate nobody trusts: the signature matches, the signer is not verified.
            #expect(shown.stdout.contains("signature: Unverified (signed by CN=Throw-away profile signer"), "\(form): \(shown.stdout)")
            let trusted = try runTool("profiles", ["show", "--path", signed, "--trust", path("cert.pem")])
            #expect(trusted.stdout.contains("signature: Verified (signed by CN=Throw-away profile signer)"), "\(form): \(trusted.stdout)")
        }
        // A signature around something else, or cut short, is refused.
        var cut = Array(try Data(contentsOf: URL(fileURLWithPath: path("signed-DER.mobileconfig"))))
        cut.removeLast(cut.count / 2)
        #expect(throws: ProfileError.self) { try ConfigurationProfile(bytes: cut) }
    }
}
