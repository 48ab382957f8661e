import Foundation
@_spi(Engine) import OpenDefaults
import PropertyList
import Testing
import TestSupport
@testable import ConfigurationProfiles

/// `profiles install/remove/list/show/status` as root against real files, with
/// a defaults object in this process watching them.
@Suite("Configuration profiles: installing", .offThePool, .timeLimit(.minutes(10)), .requires(.root))
struct ProfileInstallTests {
    @Test("install forces a key in a running process; the user's own value stays on disk and is back in force after remove")
    func installAndRemove() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let store = DomainStore(layout: box.layout)
        let defaults = Defaults(domainName: "com.example.app", store: store, arguments: [])
        defaults.set("mine", forKey: "Homepage")
        #expect(defaults.synchronize())
        #expect(!defaults.objectIsForced(forKey: "Homepage"))
        let path = try box.write(profileDictionary("com.example.one", [customPayload("com.example.app", ["Homepage": "https://one", "Level": 3])],
                                                   name: "Example One"), name: "one.mobileconfig")
        let installed = try box.profiles(["install", "--path", path])
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(installed.stdout.hasPrefix("Installed com.example.one (Example One) for the system: 2 forced keys in 1 domain"), "\(installed.stdout)")
        #expect(eventually { defaults.string(forKey: "Homepage") == "https://one" && defaults.objectIsForced(forKey: "Homepage") })
        #expect(defaults.integer(forKey: "Level") == 3)
        // The user's file still holds the user's value.
        let own = try PropertyList(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: box.userFolder + "/com.example.app.plist"))))
        #expect(own.dictionaryValue?["Homepage"] == "mine")
        let list = try box.profiles(["list"])
        #expect(list.stdout == "com.example.one\tExample One\tsystem\tUnsigned\t2 forced keys in 1 domain\n", "\(list.stdout)")
        let removed = try box.profiles(["remove", "--identifier", "com.example.one"])
        #expect(removed.status == 0 && removed.stdout == "Removed com.example.one (Example One) for the system\n", "\(removed.stdout)\(removed.stderr)")
        #expect(eventually { defaults.string(forKey: "Homepage") == "mine" && !defaults.objectIsForced(forKey: "Homepage") })
        #expect(defaults.object(forKey: "Level") == nil)
        #expect(try box.profiles(["list"]).stdout.hasPrefix("There are no configuration profiles installed"))
    }

    @Test("two profiles force one key differently: the latest installed wins, the conflict is listed; removing it brings back the other")
    func conflicts() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let defaults = Defaults(domainName: "com.example.app", store: DomainStore(layout: box.layout), arguments: [])
        let a = try box.write(profileDictionary("com.example.a", [customPayload("com.example.app", ["Level": 1])], name: "A"), name: "a.mobileconfig")
        let b = try box.write(profileDictionary("com.example.b", [mcxPayload("com.example.app", "Forced", ["Level": 2])], name: "B"), name: "b.mobileconfig")
        #expect(try box.profiles(["install", "--path", a]).status == 0)
        let second = try box.profiles(["install", "--path", b])
        #expect(second.stdout.contains("conflict: com.example.app Level is forced differently by com.example.a; com.example.b is in force"), "\(second.stdout)")
        #expect(eventually { defaults.integer(forKey: "Level") == 2 })
        let list = try box.profiles(["list"])
        #expect(list.stdout.contains("conflict (system): com.example.app Level is forced by com.example.b (in force) and differently by com.example.a"), "\(list.stdout)")
        let json = try box.profiles(["list", "--output", "json"])
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let conflicts = parsed?["conflicts"] as? [[String: Any]]
        #expect(conflicts?.first?["in_force"] as? String == "com.example.b" && conflicts?.first?["overridden"] as? [String] == ["com.example.a"])
        let shown = try box.profiles(["show", "--identifier", "com.example.a"])
        #expect(shown.stdout.contains("for: the system") && shown.stdout.contains("conflict (system)"), "\(shown.stdout)")
        // Installing A again makes it the latest: the rule is install order, not a flip-flop on each read.
        #expect(try box.profiles(["install", "--path", a]).stdout.hasPrefix("Replaced com.example.a"))
        #expect(eventually { defaults.integer(forKey: "Level") == 1 })
        #expect(try box.profiles(["remove", "--identifier", "com.example.a"]).status == 0)
        #expect(eventually { defaults.integer(forKey: "Level") == 2 })
        let status = try box.profiles(["status", "--user", box.userName])
        #expect(status.stdout == "com.example.app:\n    Level = 2    — com.example.b (B)\n", "\(status.stdout)")
        // A file written by hand for the user is of higher precedence: status names it, not the profile.
        let handWritten = box.managed + "/users/\(box.userName)/com.example.app.plist"
        try FileManager.default.createDirectory(atPath: box.managed + "/users/\(box.userName)", withIntermediateDirectories: true)
        try PropertyList.dictionary(["Level": 7]).data(as: .xml).write(to: URL(fileURLWithPath: handWritten))
        let byHand = try box.profiles(["status", "--user", box.userName])
        #expect(byHand.stdout == "com.example.app:\n    Level = 7    — the file \(handWritten)\n", "\(byHand.stdout)")
    }

    @Test("keys that look alike (NFC and NFD) are two forced keys, each with its own value and its own profile")
    func lookalikeKeys() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let nfc = LiteralString("caf\u{E9}"), nfd = LiteralString("cafe\u{301}")
        let path = try box.write(profileDictionary("com.example.lookalike", [customPayload("com.example.app", [nfc: "composed", nfd: "decomposed"])]),
                                 name: "l.mobileconfig")
        let r = try box.profiles(["install", "--path", path])
        #expect(r.status == 0 && r.stdout.contains("2 forced keys in 1 domain"), "\(r.status) \(r.stdout)\(r.stderr)")
        let defaults = Defaults(domainName: "com.example.app", store: DomainStore(layout: box.layout), arguments: [])
        #expect(defaults.propertyList(forKey: nfc.string) == "composed" && defaults.propertyList(forKey: nfd.string) == "decomposed")
        let index = try ProfileStore(managedDirectory: box.managed).index()
        #expect(index.forcingProfile(domain: "com.example.app", key: nfc.string, target: .system)?.identifier == "com.example.lookalike")
        #expect(index.forcingProfile(domain: "com.example.app", key: nfd.string, target: .system)?.identifier == "com.example.lookalike")
        #expect(index.forcedBy[.system]?["com.example.app"]?.count == 2)
    }

    @Test("a User profile for one user wins over a System one for that user only")
    func userOverSystem() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let system = try box.write(profileDictionary("com.example.sys", [customPayload("com.example.app", ["Level": 1])]), name: "s.mobileconfig")
        let user = try box.write(profileDictionary("com.example.usr", [customPayload("com.example.app", ["Level": 5])], scope: "User"), name: "u.mobileconfig")
        #expect(try box.profiles(["install", "--path", system]).status == 0)
        let noUser = try box.profiles(["install", "--path", user])
        #expect(noUser.status == 1 && noUser.stderr.contains("User profile: name its user with --user NAME"), "\(noUser.stderr)")
        let ghost = try box.profiles(["install", "--path", user, "--user", "no-such-user-here"])
        #expect(ghost.status == 1 && ghost.stderr.contains("no user is called no-such-user-here"))
        let r = try box.profiles(["install", "--path", user, "--user", box.userName])
        #expect(r.status == 0 && r.stdout.contains("for the user nobody"), "\(r.stdout)\(r.stderr)")
        let mine = Defaults(domainName: "com.example.app", store: DomainStore(layout: box.layout), arguments: [])
        #expect(mine.integer(forKey: "Level") == 5)
        var other = box.layout
        other.userName = "root"
        #expect(Defaults(domainName: "com.example.app", store: DomainStore(layout: other), arguments: []).integer(forKey: "Level") == 1)
        let list = try box.profiles(["list", "--all"])
        #expect(list.stdout.contains("com.example.usr\tcom.example.usr\tuser nobody"), "\(list.stdout)")
        #expect(!list.stdout.contains("conflict"), "user and system profiles do not conflict: \(list.stdout)")
    }

    @Test("PayloadRemovalDisallowed: remove is refused without --force, and nothing changes")
    func removalDisallowed() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let path = try box.write(profileDictionary("com.example.locked", [customPayload("com.example.app", ["K": 1])],
                                                   extra: ["PayloadRemovalDisallowed": true]), name: "l.mobileconfig")
        #expect(try box.profiles(["install", "--path", path]).status == 0)
        let before = box.indexBytes
        let refused = try box.profiles(["remove", "--identifier", "com.example.locked"])
        #expect(refused.status == 1 && refused.stderr.contains("disallows its removal") && refused.stderr.contains("--force"), "\(refused.stderr)")
        #expect(box.indexBytes == before)
        #expect(try box.profiles(["remove", "--identifier", "com.example.locked", "--force"]).status == 0)
        let missing = try box.profiles(["remove", "--identifier", "com.example.locked"])
        #expect(missing.status == 1 && missing.stderr.contains("no installed profile has the identifier com.example.locked"))
    }

    @Test("bad profiles are refused naming the place; what is installed is not disturbed", arguments: [
        ("not a property list", Data("hello, world".utf8), "not a property list"),
        ("Forced not an array", try! PropertyList.dictionary(profileDictionary("com.example.bad", [
            ["PayloadType": "com.apple.ManagedClient.preferences", "PayloadIdentifier": "m", "PayloadUUID": "u",
             "PayloadContent": ["com.example.app": ["Forced": ["mcx_preference_settings": ["K": 1]]]]],
        ])).data(as: .xml), "com.example.app › Forced: expected an array"),
        ("a domain that is a path", try! PropertyList.dictionary(profileDictionary("com.example.bad", [customPayload("../../etc/passwd", ["K": 1])])).data(as: .xml),
         "PayloadContent[0]: the preference domain \"../../etc/passwd\""),
    ])
    func badInput(name: String, bytes: Data, message: String) throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let good = try box.write(profileDictionary("com.example.good", [customPayload("com.example.app", ["K": 1])]), name: "g.mobileconfig")
        #expect(try box.profiles(["install", "--path", good]).status == 0)
        let before = box.indexBytes
        let tree = try FileManager.default.subpathsOfDirectory(atPath: box.managed)
        let path = box.root + "/bad.mobileconfig"
        try bytes.write(to: URL(fileURLWithPath: path))
        let r = try box.profiles(["install", "--path", path])
        #expect(r.status == 1 && r.stderr.contains(path) && r.stderr.contains(message), "\(name): \(r.stderr)")
        #expect(box.indexBytes == before)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: box.managed) == tree)
    }

    @Test("an unprivileged user cannot install or remove (setpriv); nothing changes", .requires(.otherUser))
    func unprivileged() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let path = try box.write(profileDictionary("com.example.one", [customPayload("com.example.app", ["K": 1])]), name: "one.mobileconfig")
        chmod(path, 0o644)
        let tool = productsDirectory.appendingPathComponent("profiles").path
        // Installed under a strict umask: the forced files must still be readable by every user.
        let strict = try runTool("/bin/sh", ["-c", "umask 077; exec \"$0\" install --path \"$1\"", tool, path], absolute: true, environment: box.environment)
        #expect(strict.status == 0, "\(strict.stderr)")
        let defaultsTool = productsDirectory.appendingPathComponent("defaults").path
        let read = try runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", defaultsTool, "read", "com.example.app", "K"],
                               absolute: true, environment: box.environment)
        #expect(read.stdout == "1\n", "another user reads the forced value: \(read.stdout)\(read.stderr)")
        let before = box.indexBytes
        for verb in [["install", "--path", path], ["remove", "--identifier", "com.example.one"]] {
            let r = try runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", tool] + verb,
                                absolute: true, environment: box.environment)
            #expect(r.status == 1 && r.stderr.contains("needs root"), "\(verb[0]): \(r.stderr)")
        }
        #expect(box.indexBytes == before)
        // Reading is for everyone: list works, and the original bytes stay private.
        let list = try runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", tool, "list", "--all"],
                               absolute: true, environment: box.environment)
        #expect(list.status == 0 && list.stdout.hasPrefix("com.example.one\t"), "\(list.stdout)\(list.stderr)")
        let installed = try FileManager.default.attributesOfItem(atPath: box.managed + "/profiles/installed")
        #expect((installed[.posixPermissions] as? Int) == 0o700)
    }

    @Test("defaults: read shows the value in force; write of a forced key names the profile and stores the user's own value")
    func defaultsTool() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let path = try box.write(profileDictionary("com.example.one", [customPayload("com.example.app", ["Homepage": "https://one"])],
                                                   name: "Example One"), name: "one.mobileconfig")
        #expect(try box.profiles(["install", "--path", path]).status == 0)
        let write = try box.defaults(["write", "com.example.app", "Homepage", "mine"])
        #expect(write.status == 0)
        #expect(write.stderr.contains("Homepage in com.example.app is managed by the configuration profile \"Example One\" (com.example.one)"), "\(write.stderr)")
        #expect(write.stderr.contains("Your own value was stored"))
        #expect(try box.defaults(["read", "com.example.app", "Homepage"]).stdout == "https://one\n")
        #expect(try box.defaults(["read", "com.example.app"]).stdout.contains("Homepage = \"https://one\""))
        let own = try PropertyList(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: box.userFolder + "/com.example.app.plist"))))
        #expect(own.dictionaryValue?["Homepage"] == "mine")
        // An unmanaged key: no message.
        #expect(try box.defaults(["write", "com.example.app", "Other", "1"]).stderr.isEmpty)
    }

    @Test("a batch given the caller's profiles leaves a profile installed by hand alone, however recently: not replaced, not removed, named; the rest is applied")
    func batchLeavesHandInstalledProfiles() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let defaults = Defaults(domainName: "com.example.app", store: DomainStore(layout: box.layout), arguments: [])
        let store = ProfileStore(managedDirectory: box.managed)
        func batchProfile(_ identifier: String, _ values: [LiteralString: PropertyList]) throws -> ProfileStore.BatchProfile {
            let bytes = try PropertyList.dictionary(profileDictionary(identifier, [customPayload("com.example.app", values)])).encoded(as: .xml)
            return .init(profile: try ConfigurationProfile(bytes: bytes), bytes: bytes, signature: .unsigned)
        }
        // The caller (a fleet agent) installed "ours" earlier.
        _ = try store.apply(installing: [try batchProfile("com.example.ours", ["Ours": 1])], removing: [], owned: [])
        // Then, after the caller last looked at the store, an administrator installs "shared" by hand.
        let byHand = try box.write(profileDictionary("com.example.shared", [customPayload("com.example.app", ["Shared": "by hand"])]), name: "shared.mobileconfig")
        #expect(try box.profiles(["install", "--path", byHand]).status == 0)
        // The caller's next batch declares "shared" too, a new "theirs", and gives up "ours".
        let result = try store.apply(installing: [try batchProfile("com.example.shared", ["Shared": "from the batch"]),
                                                  try batchProfile("com.example.theirs", ["Theirs": 2])],
                                     removing: ["com.example.ours"], owned: ["com.example.ours"])
        #expect(result.leftAlone == ["com.example.shared"])
        #expect(eventually { defaults.integer(forKey: "Theirs") == 2 && defaults.object(forKey: "Ours") == nil })
        #expect(defaults.string(forKey: "Shared") == "by hand")
        let index = try store.index()
        #expect(Set(index.profiles.map(\.identifier)) == ["com.example.shared", "com.example.theirs"])
        let shared = try #require(index.profiles.first { $0.identifier == "com.example.shared" })
        #expect(try store.originalBytes(of: shared) == Array(try Data(contentsOf: URL(fileURLWithPath: byHand))))
        // Without `owned`, a batch replaces whatever it installs.
        let plain = try store.apply(installing: [try batchProfile("com.example.shared", ["Shared": "replaced"])], removing: [])
        #expect(plain.leftAlone.isEmpty)
        #expect(eventually { defaults.string(forKey: "Shared") == "replaced" })
    }
}

/// Signed profiles made here with a throw-away CA: verified against a trust file, refused when tampered with, and the policy option.
@Suite("Configuration profiles: signatures", .offThePool, .timeLimit(.minutes(10)), .requires(.root, .openssl))
struct ProfileSignatureTests {
    /// A CA, a signer it issued, and a profile signed by the signer (DER), in the sandbox.
    static func signedProfile(_ box: ProfileSandbox, signerUsage: String = "keyUsage=digitalSignature") throws -> (signed: String, ca: String, unsigned: String) {
        func path(_ name: String) -> String { box.root + "/" + name }
        let openssl = "/usr/bin/openssl"
        func run(_ args: [String]) throws {
            let r = try runTool(openssl, args, absolute: true)
            try #require(r.status == 0, "openssl \(args.first ?? ""): \(r.stderr)")
        }
        try run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2",
                 "-subj", "/CN=Throw-away profile CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"])
        try run(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("signer.key"), "-out", path("signer.csr"), "-subj", "/CN=Profile signer"])
        try "basicConstraints=CA:FALSE\n\(signerUsage)\n".write(toFile: path("ext.cnf"), atomically: true, encoding: .utf8)
        try run(["x509", "-req", "-in", path("signer.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
                 "-out", path("signer.pem"), "-days", "1", "-extfile", path("ext.cnf")])
        let unsigned = try box.write(profileDictionary("com.example.signed", [customPayload("com.example.app", ["Homepage": "https://example.com"])],
                                                       name: "Signed"), name: "p.mobileconfig")
        try run(["cms", "-sign", "-nodetach", "-binary", "-in", unsigned, "-signer", path("signer.pem"), "-inkey", path("signer.key"),
                 "-outform", "DER", "-out", path("signed.mobileconfig")])
        return (path("signed.mobileconfig"), path("ca.pem"), unsigned)
    }

    @Test("Verified with the CA trusted (a trust file, or the administrator's trust folder), Unverified without; recorded at install")
    func verified() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let (signed, ca, _) = try Self.signedProfile(box)
        let untrusted = try box.profiles(["show", "--path", signed])
        #expect(untrusted.status == 0 && untrusted.stdout.contains("signature: Unverified (signed by CN=Profile signer"), "\(untrusted.stdout)")
        let withFile = try box.profiles(["show", "--path", signed, "--trust", ca])
        #expect(withFile.stdout.contains("signature: Verified (signed by CN=Profile signer)"), "\(withFile.stdout)")
        let refused = try box.profiles(["install", "--path", signed, "--signature-policy", "verified"])
        #expect(refused.status == 1 && refused.stderr.contains("is not verified") && refused.stderr.contains("nothing was installed"), "\(refused.stderr)")
        #expect(box.indexBytes == nil)
        // The administrator's trust folder.
        try FileManager.default.createDirectory(atPath: box.root + "/etc/opendefaults/profile-trust", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ca, toPath: box.root + "/etc/opendefaults/profile-trust/ca.pem")
        let installed = try box.profiles(["install", "--path", signed, "--signature-policy", "verified"])
        #expect(installed.status == 0 && installed.stdout.contains("signature: Verified (signed by CN=Profile signer)"), "\(installed.stdout)\(installed.stderr)")
        #expect(try box.profiles(["list"]).stdout.contains("\tVerified\t"))
    }

    @Test("an anchor another user could have planted is not trusted; a signer whose key usage forbids signing is Unverified")
    func untrustedAnchorsAndUsage() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let (signed, ca, _) = try Self.signedProfile(box)
        // The trust folder is writable by others (and the anchor nobody's): not trusted.
        let folder = box.root + "/etc/opendefaults/profile-trust"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ca, toPath: folder + "/ca.pem")
        chmod(folder, 0o777)
        chown(folder + "/ca.pem", 65534, 65534)
        let planted = try box.profiles(["install", "--path", signed, "--signature-policy", "verified"])
        #expect(planted.status == 1 && planted.stderr.contains("is not verified"), "\(planted.stdout)\(planted.stderr)")
        #expect(box.indexBytes == nil)
        // Owned by root in a folder only root can change: trusted.
        chmod(folder, 0o755)
        chown(folder + "/ca.pem", 0, 0)
        let trusted = try box.profiles(["show", "--path", signed])
        #expect(trusted.stdout.contains("signature: Verified"), "\(trusted.stdout)")
        // A signer certificate for key encipherment only (a TLS server's) does not sign profiles.
        let other = try ProfileSandbox()
        defer { other.remove() }
        let (wrongUsage, otherCA, _) = try Self.signedProfile(other, signerUsage: "keyUsage=keyEncipherment\nextendedKeyUsage=serverAuth")
        let shown = try other.profiles(["show", "--path", wrongUsage, "--trust", otherCA])
        #expect(shown.stdout.contains("signature: Unverified") && shown.stdout.contains("does not allow signing"), "\(shown.stdout)")
    }

    @Test("a signature that does not match its content is refused everywhere and never installed")
    func tampered() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let (signed, ca, unsigned) = try Self.signedProfile(box)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: signed)))
        let needle = Array("example.com".utf8)
        let at = try #require((0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle })
        bytes[at + 2] = UInt8(ascii: "b")  // "exbmple.com": still a valid profile inside, no longer what was signed
        let forged = box.root + "/forged.mobileconfig"
        try Data(bytes).write(to: URL(fileURLWithPath: forged))
        for verb in [["install", "--path", forged], ["validate", "--path", forged], ["show", "--path", forged, "--trust", ca]] {
            let r = try box.profiles(verb)
            #expect(r.status == 1, "\(verb[0]) \(r.stdout)")
            #expect((r.stderr + r.stdout).contains("does not match"), "\(verb[0]): \(r.stderr)\(r.stdout)")
        }
        #expect(box.indexBytes == nil)
        // The policy: unsigned refused under `signed`.
        let r = try box.profiles(["install", "--path", unsigned, "--signature-policy", "signed"])
        #expect(r.status == 1 && r.stderr.contains("not signed"), "\(r.stderr)")
    }
}

/// Set-Once and Often: written into the user's own domain, again only for a newer timestamp, left in place on removal.
@Suite("Configuration profiles: set-once values", .offThePool, .timeLimit(.minutes(10)), .requires(.root))
struct SetOnceTests {
    static let t1 = Date(timeIntervalSince1970: 1_700_000_000)
    static let t2 = Date(timeIntervalSince1970: 1_800_000_000)

    func ownValue(_ box: ProfileSandbox, _ domain: String, _ key: String) throws -> PropertyList? {
        guard let data = FileManager.default.contents(atPath: box.userFolder + "/\(domain).plist") else { return nil }
        return try PropertyList(decoding: Array(data)).dictionaryValue?[LiteralString(key)]
    }

    @Test("applied once; the user's change survives a re-run; a newer mcx_data_timestamp applies again; removal leaves the value")
    func timestamps() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        func install(_ stamp: Date) throws {
            let path = try box.write(profileDictionary("com.example.once", [mcxPayload("com.example.app", "Set-Once", ["Theme": "dark"], timestamp: stamp)]),
                                     name: "once.mobileconfig")
            let r = try box.profiles(["install", "--path", path])
            try #require(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("1 set-once key") && r.stdout.contains("next `profiles apply`"), "\(r.stdout)")
        }
        try install(Self.t1)
        #expect(try ownValue(box, "com.example.app", "Theme") == nil, "installing writes nothing into a user's domain by itself")
        let first = try box.profiles(["apply"])
        #expect(first.status == 0 && first.stdout == "set once: com.example.app: Theme (from com.example.once)\n", "\(first.stdout)\(first.stderr)")
        #expect(try ownValue(box, "com.example.app", "Theme") == "dark")
        // The user changes it: an ordinary value, not forced.
        #expect(try box.defaults(["write", "com.example.app", "Theme", "light"]).stderr.isEmpty)
        #expect(try box.profiles(["apply"]).stdout.isEmpty)
        #expect(try ownValue(box, "com.example.app", "Theme") == "light")
        // The same timestamp again (a reinstall): not applied.
        try install(Self.t1)
        #expect(try box.profiles(["apply"]).stdout.isEmpty)
        #expect(try ownValue(box, "com.example.app", "Theme") == "light")
        // A newer one: applied again.
        try install(Self.t2)
        #expect(try box.profiles(["apply"]).stdout.contains("Theme"))
        #expect(try ownValue(box, "com.example.app", "Theme") == "dark")
        // An older one after it: not applied.
        #expect(try box.defaults(["write", "com.example.app", "Theme", "light"]).status == 0)
        try install(Self.t1)
        #expect(try box.profiles(["apply"]).stdout.isEmpty)
        // Removing the profile leaves the user's value where it is.
        #expect(try box.profiles(["remove", "--identifier", "com.example.once"]).status == 0)
        #expect(try box.profiles(["apply"]).stdout.isEmpty)
        #expect(try ownValue(box, "com.example.app", "Theme") == "light")
    }

    @Test("Often is written again at every run")
    func often() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let path = try box.write(profileDictionary("com.example.often", [mcxPayload("com.example.app", "Often", ["Dock": "left"])]), name: "o.mobileconfig")
        #expect(try box.profiles(["install", "--path", path]).status == 0)
        for _ in 0..<2 {
            #expect(try box.profiles(["apply"]).stdout.contains("Dock"))
            #expect(try ownValue(box, "com.example.app", "Dock") == "left")
            #expect(try box.defaults(["write", "com.example.app", "Dock", "right"]).status == 0)
        }
    }

    @Test("a damaged state file is refused by name, not overwritten")
    func damagedState() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let path = try box.write(profileDictionary("com.example.once", [mcxPayload("com.example.app", "Set-Once", ["Theme": "dark"])]), name: "s.mobileconfig")
        #expect(try box.profiles(["install", "--path", path]).status == 0)
        try FileManager.default.createDirectory(atPath: box.userFolder + "/opendefaults", withIntermediateDirectories: true)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: box.userFolder + "/opendefaults/set-once.plist"))
        let r = try box.profiles(["apply"])
        #expect(r.status == 1 && r.stderr.contains("opendefaults/set-once.plist") && r.stderr.contains("not a property-list dictionary"), "\(r.stderr)")
        #expect(FileManager.default.contents(atPath: box.userFolder + "/opendefaults/set-once.plist") == Data("garbage".utf8))
        #expect(try ownValue(box, "com.example.app", "Theme") == nil)
    }

    @Test("a User profile's set-once values are written as that user (setpriv), into that user's files", .requires(.otherUser))
    func asTheUser() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let path = try box.write(profileDictionary("com.example.mine", [mcxPayload("com.example.app", "Set-Once", ["Theme": "dark"])], scope: "User"),
                                 name: "u.mobileconfig")
        // `nobody` has no home: install says the values wait for the user's own `profiles apply`, and still installs.
        let r = try box.profiles(["install", "--path", path, "--user", "nobody"])
        #expect(r.status == 0 && r.stderr.contains("next `profiles apply`"), "\(r.stdout)\(r.stderr)")
        // The user's own run, in a folder the user owns.
        let folder = box.root + "/nobody-config"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(chown(folder, 65534, 65534) == 0)
        var env = box.environment
        env["XDG_CONFIG_HOME"] = folder
        let tool = productsDirectory.appendingPathComponent("profiles").path
        let applied = try runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", tool, "apply"], absolute: true, environment: env)
        #expect(applied.status == 0 && applied.stdout.contains("Theme (from com.example.mine)"), "\(applied.stdout)\(applied.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/com.example.app.plist")
        #expect((attributes[.ownerAccountID] as? Int) == 65534)
    }
}
