import HTTPMessages
import ConfigurationProfiles
import Foundation
@_spi(Engine) import OpenDefaults
import PropertyList
import Testing
import TestSupport
@testable import SettingsBundle
@testable import SettingsWeb

/// The Settings app's pages and forms, without a server or a browser.
@Suite("Settings web app", .timeLimit(.minutes(10)))
struct SettingsWebTests {
    static let example = repositoryRoot.appendingPathComponent("Examples/AppSettings/Settings.bundle").path
    let dir: TemporaryDirectory
    let layout: PreferencesLayout
    let app: SettingsApp
    let domain = "com.example.AppSettings"

    init() throws {
        dir = try TemporaryDirectory()
        layout = .sandboxed(in: dir.path)
        let store = DomainStore(layout: layout)
        store.setErrorHandler { _ in }
        app = SettingsApp(catalog: SettingsCatalog(directory: dir.path + "/catalog"), extraBundles: [domain: Self.example], store: store)
    }

    func get(_ path: String, query: String = "", language: String = "") -> ServerResponse {
        app.respond(to: ServerRequest.settings(.get, path: path, query: FormData(urlEncoded: query), acceptLanguage: language, host: "127.0.0.1:8080"))
    }
    /// A post as the app's own page sends it: its form token, same origin.
    func post(_ path: String, query: String = "", form: String) -> ServerResponse {
        app.respond(to: ServerRequest.settings(.post, path: path, query: FormData(urlEncoded: query),
            form: FormData(urlEncoded: "token=\(app.policy.formToken)&" + form), host: "127.0.0.1:8080",
            origin: "http://127.0.0.1:8080", fetchSite: "same-origin"))
    }
    /// The domain as another process sees it: read from disk.
    func onDisk(_ key: String) -> PropertyList? {
        guard let data = FileManager.default.contents(atPath: layout.path(for: domain, scope: .currentUser)),
              case .dictionary(let d)? = try? PropertyList(decoding: data) else { return nil }
        return d[key]
    }

    @Test func theAppListNamesEachInstalledApplication() throws {
        let catalog = SettingsCatalog(directory: dir.path + "/catalog")
        try catalog.install(bundleAt: Self.example, domain: "org.example.Installed")
        #expect(catalog.installedDomains() == ["org.example.Installed"])
        let page = get("/").text
        #expect(page.contains("href=\"/apps/org.example.Installed\""))
        #expect(page.contains("href=\"/apps/com.example.AppSettings\""))
        #expect(throws: SettingsBundleError.self) { try catalog.install(bundleAt: dir.path + "/none", domain: "org.example.X") }
        #expect(throws: SettingsBundleError.self) { try catalog.install(bundleAt: Self.example, domain: "../evil") }
        // Installing again replaces; uninstalling removes the bundle (not the defaults).
        try catalog.install(bundleAt: Self.example, domain: "org.example.Installed")
        #expect(catalog.installedDomains() == ["org.example.Installed"])
        try catalog.uninstall(domain: "org.example.Installed")
        #expect(catalog.installedDomains().isEmpty)
        #expect(!get("/").text.contains("org.example.Installed"))
    }

    @Test func theRootPaneShowsEveryControlLocalized() {
        let r = get("/apps/com.example.AppSettings", language: "de-DE,en;q=0.5")
        #expect(r.status == 200)
        let page = r.text
        #expect(page.contains("<h2>Allgemeines</h2>"))
        #expect(page.contains("type=\"password\""))
        #expect(page.contains("name=\"value:protocol\" value=\"SMTP\" checked"))
        #expect(page.contains("type=\"range\"") && page.contains("min=\"1\" max=\"10\"") && page.contains("value=\"5\""))
        #expect(page.contains("image?name=turtle.png") && page.contains("image?name=rabbit.png"))
        #expect(page.contains("role=\"switch\"") && page.contains("value=\"on\" checked"))
        #expect(page.contains("href=\"/apps/com.example.AppSettings?pane=More.plist\""))
        let child = get("/apps/com.example.AppSettings", query: "pane=More.plist", language: "de").text
        #expect(child.contains("id=\"back\" href=\"/apps/com.example.AppSettings\">‹ AppSettings"))
        #expect(child.contains("Lieblingslehrer"))
        #expect(child.contains("<p class=\"footer\">Diese Einstellungen stehen auf einer Unterseite.</p>"))
    }

    @Test func applyWritesOnlyWhatChangedAndEveryoneSeesIt() {
        let r = post("/apps/com.example.AppSettings", form: "action=apply&value%3Ausername=ada&value%3Apassword=&toggle%3Awarp=1&value%3Awarpfactor=7&value%3Aprotocol=IMAP")
        #expect(r.status == 303)
        #expect(r.location == "/apps/com.example.AppSettings?pane=Root.plist&status=saved")
        #expect(onDisk("username") == "ada")
        #expect(onDisk("warp") == "Disabled")  // the checkbox was not sent: off
        #expect(onDisk("warpfactor") == 7.0)
        #expect(onDisk("protocol") == "IMAP")
        #expect(onDisk("password") == nil)  // an empty password field keeps the password
        #expect(get("/apps/com.example.AppSettings", query: "status=saved").text.contains("Your changes were applied."))
    }

    @Test func valuesOutsideTheChoicesOrTheRangeAreRefusedAndNothingIsWritten() {
        for form in ["value%3Aprotocol=GOPHER", "value%3Awarpfactor=11", "value%3Awarpfactor=nan", "value%3Awarpfactor=abc"] {
            let r = post("/apps/com.example.AppSettings", form: "action=apply&value%3Ausername=bob&" + form)
            #expect(r.status == 422, "\(form)")
            #expect(r.text.contains("Nothing was changed"))
            #expect(onDisk("username") == nil, "\(form)")
            // The acceptable edit is shown again, unsaved.
            #expect(r.text.contains("name=\"value:username\" value=\"bob\""), "\(form)")
        }
        let r = post("/apps/com.example.AppSettings", form: "action=apply&value%3Aprotocol=%3Cscript%3E")
        #expect(r.text.contains("&#39;&lt;script&gt;&#39; is not one of its values"))
        #expect(!r.text.contains("<script>"))
    }

    @Test func resetWritesTheBundleDefaultsAndRevertWritesNothing() {
        _ = post("/apps/com.example.AppSettings", form: "action=apply&value%3Awarpfactor=2&value%3Aprotocol=HTTP")
        #expect(onDisk("protocol") == "HTTP")
        let revert = post("/apps/com.example.AppSettings", form: "action=revert&value%3Aprotocol=POP3")
        #expect(revert.status == 303 && revert.location?.hasSuffix("status=reverted") == true)
        #expect(onDisk("protocol") == "HTTP")
        let reset = post("/apps/com.example.AppSettings", form: "action=reset")
        #expect(reset.location?.hasSuffix("status=reset") == true)
        #expect(onDisk("protocol") == "SMTP")
        #expect(onDisk("warpfactor") == 5)
        #expect(onDisk("warp") == "Engaged")
    }

    @Test func hostileBundleTextIsEscapedEverywhere() throws {
        let hostile = "<script>alert('x')</script>\"&"
        try dir.write("evil/Root.plist", .dictionary([
            "Title": .string(hostile),
            "PreferenceSpecifiers": [
                ["Type": "PSGroupSpecifier", "Title": .string(hostile), "FooterText": .string(hostile)],
                ["Type": "PSTextFieldSpecifier", "Title": .string(hostile), "Key": .string(hostile), "DefaultValue": .string(hostile)],
                ["Type": "PSMultiValueSpecifier", "Title": "m", "Key": "m", "DefaultValue": .string(hostile),
                 "Titles": [.string(hostile)], "Values": [.string(hostile)]],
                ["Type": "IASKButtonSpecifier", "Title": .string(hostile)],
            ],
        ]))
        let store = DomainStore(layout: layout)
        let evil = SettingsApp(catalog: SettingsCatalog(directory: dir.path + "/none"), extraBundles: ["org.evil": dir.path + "/evil"], store: store)
        let page = evil.respond(to: ServerRequest.settings(.get, path: "/apps/org.evil", host: "localhost")).text
        #expect(!page.contains("<script>"))
        #expect(!page.contains("alert('x')"))
        #expect(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;"))
        let list = evil.respond(to: ServerRequest.settings(.get, path: "/", host: "localhost")).text
        #expect(!list.contains("<script>"))
    }

    @Test func unknownPagesAndImagesOutsideTheBundleAreNotFound() {
        #expect(get("/apps/com.nothing").status == 404)
        #expect(get("/apps/com.example.AppSettings", query: "pane=../../etc/passwd").status == 404)
        #expect(get("/apps/com.example.AppSettings/image", query: "name=../../../etc/passwd").status == 404)
        #expect(get("/apps/com.example.AppSettings/image", query: "name=Root.plist").status == 404)
        let image = get("/apps/com.example.AppSettings/image", query: "name=turtle.png")
        #expect(image.status == 200 && image.contentType == "image/png")
        #expect(get("/elsewhere").status == 404)
    }

    @Test("a forced key is shown disabled and cannot be posted", .requires(.root))
    func forcedKeysAreDisabled() throws {
        try FileManager.default.createDirectory(atPath: layout.managedDirectory, withIntermediateDirectories: true)
        let path = layout.managedDirectory + "/" + domain + ".plist"
        // The page is already being served: the policy arrives afterwards.
        #expect(!get("/apps/com.example.AppSettings").text.contains("Managed by your administrator"))
        try Data(PropertyList.dictionary(["protocol": "IMAP"]).encoded(as: .xml)).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        let page = get("/apps/com.example.AppSettings").text
        #expect(page.contains("Managed by your administrator"))
        #expect(page.contains("value=\"IMAP\" checked disabled"))
        let r = post("/apps/com.example.AppSettings", form: "action=apply&value%3Aprotocol=HTTP")
        #expect(r.status == 422)
        #expect(r.text.contains("managed by your administrator"))
        #expect(onDisk("protocol") == nil)
        // Lifting the policy shows the control enabled again, without a restart.
        try FileManager.default.removeItem(atPath: path)
        #expect(!get("/apps/com.example.AppSettings").text.contains("Managed by your administrator"))
    }

    @Test("a key forced by an installed configuration profile is locked and names the profile", .requires(.root))
    func forcedByAProfile() throws {
        let bytes = try PropertyList.dictionary([
            "PayloadType": "Configuration", "PayloadIdentifier": "com.example.mail-policy", "PayloadUUID": "U",
            "PayloadDisplayName": "Mail <Policy>",
            "PayloadContent": [["PayloadType": .string(domain), "PayloadIdentifier": "p", "PayloadUUID": "q", "protocol": "IMAP"]],
        ]).encoded(as: .xml)
        let store = ProfileStore(managedDirectory: layout.managedDirectory)
        _ = try store.install(try ConfigurationProfile(bytes: bytes), bytes: bytes, signature: .unsigned, target: .system)
        let page = get("/apps/com.example.AppSettings").text
        #expect(page.contains("Managed by your administrator: profile “Mail &lt;Policy&gt;”"), "\(page)")
        #expect(page.contains("value=\"IMAP\" checked disabled"))
        let r = post("/apps/com.example.AppSettings", form: "action=apply&value%3Aprotocol=HTTP")
        #expect(r.status == 422 && onDisk("protocol") == nil)
        try store.remove(identifier: "com.example.mail-policy")
        #expect(!get("/apps/com.example.AppSettings").text.contains("Managed by your administrator"))
    }

    @Test func formDecoding() {
        let f = FormData(urlEncoded: "a=1&b=x+y&c=%3C%E2%9C%93&d&e=%zz&a=2")
        #expect(f["a"] == "1" && f["b"] == "x y" && f["c"] == "<✓" && f["d"] == "" && f["e"] == "%zz")
        #expect(f.fields.count == 6)
        #expect("a b/ü".urlQueryEncoded == "a%20b%2F%C3%BC")
    }
}
