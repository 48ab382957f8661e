import Foundation
@_spi(Engine) import OpenDefaults
import PropertyList
import Testing
import TestSupport
@testable import ConfigurationProfiles

/// Profiles that Linux applications obey (issue 40; proposal 0017): Chrome-family policy files,
/// Firefox's `policies.json`, and a dconf database with locks, derived by `profiles install` and
/// taken away by `profiles remove`.
@Suite("Configuration profiles: Linux applications", .offThePool, .exclusive(.crashes), .timeLimit(.minutes(10)))
struct ApplicationTargetTests {
    // MARK: Conversions

    @Test("GVariant text names its type; each plist type converts only to the GVariant types it fits")
    func gvariantText() throws {
        func text(_ v: PropertyList, _ t: String) throws -> String { try GVariantText.text(of: v, as: try GVariantType(parsing: t)) }
        #expect(try text("file:///a b's.png", "s") == #"@s 'file:///a b\'s.png'"#)
        #expect(try text("two\nlines\u{1}", "s") == #"@s 'two\nlines\u0001'"#)
        #expect(try text(true, "b") == "@b true")
        #expect(try text(5, "u") == "@u 5")
        #expect(try text(-3, "i") == "@i -3")
        #expect(try text(2, "d") == "@d 2.0")
        #expect(try text(["a", "b"], "as") == "@as ['a', 'b']")
        #expect(try text(.dictionary(["k": "v", "n": 1]), "a{sv}") == "@a{sv} {'k': <@s 'v'>, 'n': <@x 1>}")
        #expect(try text(.array(["x", 3]), "(si)") == "@(si) ('x', 3)")
        for (value, type) in [(PropertyList.integer(-1), "u"), (.integer(256), "y"), (.string("x"), "b"), (.real(1.5), "i"),
                              (.date(Date()), "v"), (.array([.integer(1)]), "as"), (.string("no/path"), "o")] {
            #expect(throws: GVariantText.Mismatch.self, "\(value) as \(type)") { try text(value, type) }
        }
        #expect(throws: GVariantTypeError.self) { try GVariantType(parsing: "a{vs}") }
        #expect(throws: GVariantTypeError.self) { try GVariantType(parsing: "ss") }
    }

    @Test("Chrome-family policies are JSON: a date or data is refused with its place")
    func policyJSON() throws {
        #expect(String(decoding: try PolicyJSON.text(["B": true, "A": ["x", 1, 2.5]]), as: UTF8.self) == "{\"A\": [\"x\", 1, 2.5], \"B\": true}\n")
        do {
            _ = try PolicyJSON.text(["ManagedBookmarks": .array([.dictionary(["added": .date(Date())])])])
            Issue.record("a date was accepted")
        } catch {
            #expect(error.place == ["ManagedBookmarks", "[0]", "added"] && error.found == "a date")
        }
    }

    @Test("two profiles whose identifiers make one file name share the file: neither overwrites the other's policies")
    func oneFileName() throws {
        var tree = ManagedTree()
        tree.forced[.system] = ["org.chromium.Chromium": ["HomepageLocation": "https://a/", "ShowHomeButton": true]]
        tree.forcedBy[.system] = ["org.chromium.Chromium": ["HomepageLocation": "com.example a", "ShowHomeButton": "com.example_a"]]
        let files = try ApplicationPolicies.files(tree: tree, root: "/nonexistent").files
        #expect(files.map(\.path) == ["/etc/chromium/policies/managed/opendefaults-com.example_a.json"])
        #expect(files.first.map { String(decoding: $0.contents, as: UTF8.self) } == "{\"HomepageLocation\": \"https://a/\", \"ShowHomeButton\": true}\n")
    }

    @Test("installed GSettings schemas are read: paths, types, enums' nicks, ranges", .requires(.gnomeSettings))
    func schemas() throws {
        let schemas = GSettingsSchemas(root: "", ids: ["org.gnome.desktop.background", "org.gnome.desktop.screensaver"])
        let background = try #require(schemas.schema("org.gnome.desktop.background"))
        #expect(background.path == "/org/gnome/desktop/background/")
        #expect(background.keys["picture-uri"]?.type == .basic("s"))
        #expect(background.keys["picture-options"]?.choices?.contains("zoom") == true)
        #expect(background.keys["show-desktop-icons"]?.type == .basic("b"))
        let screensaver = try #require(schemas.schema("org.gnome.desktop.screensaver"))
        #expect(screensaver.keys["lock-delay"]?.type == .basic("u"))
    }

    // MARK: Installing, as root, in a sandboxed system root

    /// Every file under the sandbox's `/etc` but the profile tree, with its bytes.
    func applicationFiles(_ box: ProfileSandbox) -> [String: Data] {
        var out: [String: Data] = [:]
        let etc = box.root + "/etc"
        for path in FileManager.default.subpaths(atPath: etc) ?? [] where !path.hasPrefix("managed-preferences") {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: etc + "/" + path, isDirectory: &isFolder), !isFolder.boolValue {
                out["/etc/" + path] = FileManager.default.contents(atPath: etc + "/" + path)
            }
        }
        return out
    }

    var exampleProfile: String { Requirement.repositoryRoot.path + "/Examples/Profiles/com.example.linux-apps.mobileconfig" }

    @Test("one profile: Chromium's managed and recommended files, both Firefoxes' policies.json, a dconf keyfile with locks; status names who obeys; removal leaves nothing",
          .requires(.root), .requires(.gnomeSettings))
    func installAndRemove() throws {
        let box = try ProfileSandbox.withSchemas()
        defer { box.remove() }
        let before = Set(FileManager.default.subpaths(atPath: box.root + "/etc") ?? [])
        let installed = try box.profiles(["install", "--path", exampleProfile])
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(installed.stdout.contains("Chromium: /etc/chromium/policies/managed/opendefaults-com.example.linux-apps.json (3 forced keys)"), "\(installed.stdout)")
        let files = applicationFiles(box)
        func text(_ path: String) -> String? { files[path].map { String(decoding: $0, as: UTF8.self) } }
        #expect(text("/etc/chromium/policies/managed/opendefaults-com.example.linux-apps.json")
                == "{\"BookmarkBarEnabled\": true, \"HomepageLocation\": \"https://intranet.example.com/\", \"URLBlocklist\": [\"example.org\"]}\n")
        #expect(text("/etc/chromium/policies/recommended/opendefaults-com.example.linux-apps.json") == "{\"ShowHomeButton\": true}\n")
        let firefox = "{\"policies\": {\"DisableTelemetry\": true, \"Homepage\": {\"Locked\": true, \"StartPage\": \"homepage\", \"URL\": \"https://intranet.example.com/\"}}}\n"
        #expect(text("/etc/firefox/policies/policies.json") == firefox)
        #expect(text("/etc/firefox-esr/policies/policies.json") == firefox)
        let keyfile = try #require(text("/etc/dconf/db/opendefaults.d/opendefaults-profiles"))
        #expect(keyfile.contains("[org/gnome/desktop/background]\npicture-options=@s 'zoom'\npicture-uri=@s 'file:///usr/share/backgrounds/example.png'\n"))
        #expect(text("/etc/dconf/db/opendefaults.d/locks/opendefaults-profiles")
                == "/org/gnome/desktop/background/picture-options\n/org/gnome/desktop/background/picture-uri\n")
        #expect(text("/etc/dconf/profile/user") == "user-db:user\nsystem-db:opendefaults\n")
        #expect(files["/etc/dconf/db/opendefaults"] != nil, "dconf update compiled the database")
        // Policy files are read by every user's browser.
        let mode = try FileManager.default.attributesOfItem(atPath: box.root + "/etc/firefox-esr/policies/policies.json")[.posixPermissions] as? Int
        #expect(mode == 0o644)
        let status = try box.profiles(["status", "--output", "json"])
        let table = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: [String: [String: Any]]]
        let apps = table?["org.chromium.Chromium"]?["HomepageLocation"]?["applications"] as? [[String: Any]]
        #expect(apps?.first?["application"] as? String == "Chromium", "\(status.stdout)")
        #expect(apps?.first?["file"] as? String == "/etc/chromium/policies/managed/opendefaults-com.example.linux-apps.json")
        // Removal takes away exactly what the profile put there, the folders it made included.
        let removed = try box.profiles(["remove", "--identifier", "com.example.linux-apps"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(applicationFiles(box).isEmpty, "\(applicationFiles(box).keys.sorted())")
        let after = Set(FileManager.default.subpaths(atPath: box.root + "/etc") ?? []).filter { !$0.hasPrefix("managed-preferences") }
        #expect(after.isSubset(of: before.union(["managed-preferences"])), "\(after.sorted())")
    }

    @Test("a GSettings key the schema lacks, or a value of the wrong type: validate and install refuse, naming the profile, schema, key and type; nothing is written",
          .requires(.root), .requires(.gnomeSettings))
    func gsettingsRefusals() throws {
        let box = try ProfileSandbox.withSchemas()
        defer { box.remove() }
        let cases: [([LiteralString: PropertyList], [String])] = [
            (["picture-uri": 7], ["com.example.bad", "org.gnome.desktop.background", "picture-uri", "declares picture-uri as s"]),
            (["no-such-key": "x"], ["org.gnome.desktop.background", "has no key no-such-key"]),
            (["picture-options": "sideways"], ["picture-options", "\"sideways\" is not one of", "zoom"]),
        ]
        for (values, words) in cases {
            let path = try box.write(profileDictionary("com.example.bad", [customPayload("org.gnome.desktop.background", values)]), name: "bad.mobileconfig")
            for verb in [["validate", "--path", path], ["install", "--path", path]] {
                let r = try box.profiles(verb)
                #expect(r.status == 1, "\(verb[0]) \(values): \(r.stdout)")
                for word in words { #expect(r.stderr.contains(word), "\(verb[0]): \(r.stderr)") }
            }
            #expect(box.indexBytes == nil, "nothing was installed")
            #expect(applicationFiles(box).isEmpty)
        }
    }

    @Test("a date for Chromium is refused by name; a policies.json written by hand is never replaced; a policy folder planted by another user is refused",
          .requires(.root))
    func otherRefusals() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        let dated = try box.write(profileDictionary("com.example.dated", [customPayload("org.chromium.Chromium", ["Since": .date(Date())])]), name: "d.mobileconfig")
        let r = try box.profiles(["install", "--path", dated])
        #expect(r.status == 1 && r.stderr.contains("com.example.dated › org.chromium.Chromium › Since") && r.stderr.contains("no a date"), "\(r.stderr)")
        #expect(box.indexBytes == nil)

        // A policies.json the administrator wrote: refused by name, left byte for byte.
        let folder = box.root + "/etc/firefox-esr/policies"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for p in [box.root + "/etc", box.root + "/etc/firefox-esr", folder] { chmod(p, 0o755) }
        let handWritten = Data("{\"policies\": {\"BlockAboutConfig\": true}}\n".utf8)
        try handWritten.write(to: URL(fileURLWithPath: folder + "/policies.json"))
        let firefox = try box.write(profileDictionary("com.example.ff", [customPayload("org.mozilla.firefox", ["DisableTelemetry": true])]), name: "f.mobileconfig")
        let refused = try box.profiles(["install", "--path", firefox])
        #expect(refused.status == 1 && refused.stderr.contains("/etc/firefox-esr/policies/policies.json exists and was not written by OpenDefaults"), "\(refused.stderr)")
        #expect(FileManager.default.contents(atPath: folder + "/policies.json") == handWritten)
        #expect(box.indexBytes == nil)
        #expect(!FileManager.default.fileExists(atPath: box.root + "/etc/firefox/policies/policies.json"), "nothing was written for the other Firefox either")
        try FileManager.default.removeItem(atPath: box.root + "/etc/firefox-esr")

        // /etc/chromium/policies a link another user planted in a folder they can write.
        let planted = box.root + "/planted"
        try FileManager.default.createDirectory(atPath: planted + "/managed", withIntermediateDirectories: true)
        chown(planted, 65534, 65534)
        try FileManager.default.createDirectory(atPath: box.root + "/etc/chromium", withIntermediateDirectories: true)
        chmod(box.root + "/etc/chromium", 0o1777)
        try FileManager.default.createSymbolicLink(atPath: box.root + "/etc/chromium/policies", withDestinationPath: planted)
        lchown(box.root + "/etc/chromium/policies", 65534, 65534)
        let chromium = try box.write(profileDictionary("com.example.cr", [customPayload("org.chromium.Chromium", ["HomepageLocation": "https://x"])]), name: "c.mobileconfig")
        let linked = try box.profiles(["install", "--path", chromium])
        #expect(linked.status == 1 && linked.stderr.contains("Chromium") && linked.stderr.contains("cannot be trusted"), "\(linked.status) \(linked.stdout) \(linked.stderr)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: planted + "/managed")) == [])
        #expect(box.indexBytes == nil)
    }

    // MARK: The real applications

    /// Runs `command` in a mount namespace whose `/etc` is the sandbox's `/etc` over the machine's
    /// (overlayfs, read-only): the applications read the sandbox's policies at their usual paths.
    func withSandboxEtc(_ box: ProfileSandbox, _ command: [String], environment: [String: String]? = nil) throws -> ToolResult {
        try runTool("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c",
                                          "mount -t overlay overlay -o lowerdir=\"$0\":/etc /etc && exec \"$@\"", box.root + "/etc"] + command,
                    absolute: true, environment: environment)
    }

    func chromiumPolicies(_ box: ProfileSandbox) throws -> [String: [String: Any]] {
        let work = try ScratchFolders.make("chromium-policies")
        let script = Requirement.repositoryRoot.path + "/Tests/ConfigurationProfilesTests/Scripts/chromium_policies.py"
        let r = try withSandboxEtc(box, [Requirement.pythonPath!, script, work.path])
        #expect(r.status == 0, "\(r.stderr)")
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: [String: Any]] ?? [:]
    }

    func firefoxPolicies(_ box: ProfileSandbox, expectingStart url: String?) throws -> [String: Any] {
        let work = try ScratchFolders.make("firefox-policies")
        let script = Requirement.repositoryRoot.path + "/Tests/ConfigurationProfilesTests/Scripts/firefox_policies.py"
        let r = try withSandboxEtc(box, [Requirement.pythonPath!, script, work.path] + (url.map { [$0] } ?? []))
        #expect(r.status == 0, "\(r.stderr)")
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any] ?? [:]
    }

    func gsettings(_ box: ProfileSandbox, _ arguments: [String]) throws -> String {
        let home = try ScratchFolders.make("gsettings-home")
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home.path
        env["XDG_CONFIG_HOME"] = home.path
        env["GSETTINGS_BACKEND"] = "dconf"
        env.removeValue(forKey: "DCONF_PROFILE")
        let r = try withSandboxEtc(box, ["/usr/bin/gsettings"] + arguments, environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("Chromium shows the forced policies as mandatory and the set-once one as recommended; Firefox ESR reports its policies active and opens the forced homepage; gsettings returns the forced wallpaper, not writable; after removal none of it",
          .requires(.root), .requires(.chromium), .requires(.firefox), .requires(.gnomeSettings))
    func realApplications() async throws {
        let box = try ProfileSandbox.withSchemas()
        defer { box.remove() }
        let installed = try box.profiles(["install", "--path", exampleProfile])
        #expect(installed.status == 0, "\(installed.stderr)")
        try await offThePool {
            let chromium = try chromiumPolicies(box)
            #expect(chromium["HomepageLocation"]?["value"] as? String == "https://intranet.example.com/", "\(chromium)")
            #expect(chromium["HomepageLocation"]?["level"] as? String == "Mandatory")
            #expect(chromium["URLBlocklist"]?["value"] as? [String] == ["example.org"])
            #expect(chromium["BookmarkBarEnabled"]?["level"] as? String == "Mandatory")
            #expect(chromium["ShowHomeButton"]?["level"] as? String == "Recommended", "\(chromium)")
            #expect(chromium.values.allSatisfy { $0["status"] as? String == "OK" }, "\(chromium)")

            let firefox = try firefoxPolicies(box, expectingStart: "https://intranet.example.com/")
            #expect(firefox["status"] as? Int == 1, "active: \(firefox)")
            let policies = firefox["policies"] as? [String: Any]
            #expect(policies?["DisableTelemetry"] as? Bool == true, "\(firefox)")
            #expect((policies?["Homepage"] as? [String: Any])?["URL"] as? String == "https://intranet.example.com/")
            #expect(firefox["startup_url"] as? String == "https://intranet.example.com/", "\(firefox)")

            #expect(try gsettings(box, ["get", "org.gnome.desktop.background", "picture-uri"]) == "'file:///usr/share/backgrounds/example.png'")
            #expect(try gsettings(box, ["writable", "org.gnome.desktop.background", "picture-uri"]) == "false")
            #expect(try gsettings(box, ["get", "org.gnome.desktop.background", "picture-options"]) == "'zoom'")
            #expect(try gsettings(box, ["writable", "org.gnome.desktop.background", "primary-color"]) == "true")
        }
        let removed = try box.profiles(["remove", "--identifier", "com.example.linux-apps"])
        #expect(removed.status == 0, "\(removed.stderr)")
        try await offThePool {
            let chromium = try chromiumPolicies(box)
            #expect(chromium["HomepageLocation"] == nil && chromium["ShowHomeButton"] == nil, "\(chromium)")
            let firefox = try firefoxPolicies(box, expectingStart: nil)
            #expect((firefox["policies"] as? [String: Any])?["DisableTelemetry"] == nil, "\(firefox)")
            #expect(firefox["status"] as? Int != 1, "no policies active: \(firefox)")
            #expect(try gsettings(box, ["writable", "org.gnome.desktop.background", "picture-uri"]) == "true")
            #expect(try gsettings(box, ["get", "org.gnome.desktop.background", "picture-uri"]) != "'file:///usr/share/backgrounds/example.png'")
        }
    }

    /// The corpus' browser profiles, and the application each is for.
    static let corpusBrowsers: [(file: String, folder: String)] = [
        ("golbiga--chrome", "/etc/opt/chrome/policies"),
        ("kandji-support--ChromeBrowserCloudManagement", "/etc/opt/chrome/policies"),
        ("shell-intune-samples--Google_Chrome_-_Managed_Bookmarks", "/etc/opt/chrome/policies"),
        ("shell-intune-samples--Microsoft_Edge_-_Managed_Favorites", "/etc/opt/edge/policies"),
    ]

    @Test("the corpus' Chrome and Edge profiles give the policies their expected values, as Chromium reads them; the Firefox one is active in Firefox ESR",
          .requires(.root), .requires(.shared), .requires(.chromium), .requires(.firefox))
    func corpusInRealBrowsers() async throws {
        let corpus = Requirement.sharedDirectory!.appendingPathComponent("corpora/profiles").path
        for (name, folder) in Self.corpusBrowsers {
            let box = try ProfileSandbox()
            defer { box.remove() }
            let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: corpus + "/\(name).mobileconfig.expected.json"))) as? [String: Any]
            let forced = try #require((expected?["forced"] as? [String: [String: Any]])?.values.first)
            let r = try box.profiles(["install", "--path", corpus + "/\(name).mobileconfig"])
            #expect(r.status == 0, "\(name): \(r.stderr)")
            #expect(r.stdout.contains(folder + "/managed/"), "\(name): \(r.stdout)")
            // Chromium reads the same files Chrome and Edge do, from its own folder: the sandbox's
            // Chromium folder is given the Chrome (or Edge) one, so the real browser parses them.
            let files = try FileManager.default.contentsOfDirectory(atPath: box.root + folder + "/managed")
            let view = try ProfileSandbox()
            defer { view.remove() }
            try FileManager.default.createDirectory(atPath: view.root + "/etc/chromium/policies/managed", withIntermediateDirectories: true)
            for f in files { try FileManager.default.copyItem(atPath: box.root + folder + "/managed/" + f, toPath: view.root + "/etc/chromium/policies/managed/" + f) }
            let shown = try await offThePool { try chromiumPolicies(view) }
            for (key, value) in forced {
                let row = shown[key]
                #expect(row?["level"] as? String == "Mandatory", "\(name): \(key) in \(shown.keys.sorted())")
                #expect(row.map { NSDictionary(dictionary: ["v": $0["value"] as Any]) == NSDictionary(dictionary: ["v": value]) } == true,
                        "\(name): \(key) shows \(String(describing: row?["value"])), expected \(value)")
            }
        }
        let box = try ProfileSandbox()
        defer { box.remove() }
        let name = "shell-intune-samples--Mozilla_Firefox_-_Disable_Security_Bypass"
        let r = try box.profiles(["install", "--path", corpus + "/\(name).mobileconfig"])
        #expect(r.status == 0, "\(r.stderr)")
        let firefox = try await offThePool { try firefoxPolicies(box, expectingStart: nil) }
        #expect(firefox["status"] as? Int == 1, "\(firefox)")
        let bypass = (firefox["policies"] as? [String: Any])?["DisableSecurityBypass"] as? [String: Bool]
        #expect(bypass == ["InvalidCertificate": true, "SafeBrowsing": true], "\(firefox)")
    }
}
