import HTTPMessages
import Foundation
@_spi(Engine) import OpenDefaults
import PropertyList
import Testing
@testable import SettingsBundle
@testable import SettingsWeb

/// What the Settings app admits, without a server: Host names, proof of
/// origin for every change, the access token beyond loopback, bundle files.
@Suite("Settings app access policy", .timeLimit(.minutes(10)))
struct AccessPolicyTests {
    let dir: TemporaryDirectory
    let layout: PreferencesLayout
    let store: DomainStore
    let domain = "com.example.AppSettings"

    init() throws {
        dir = try TemporaryDirectory()
        layout = .sandboxed(in: dir.path)
        store = DomainStore(layout: layout)
        store.setErrorHandler { _ in }
    }

    func app(bundle: String = SettingsWebTests.example, policy: AccessPolicy = .loopback()) -> SettingsApp {
        SettingsApp(catalog: SettingsCatalog(directory: dir.path + "/catalog"), extraBundles: [domain: bundle], store: store, policy: policy)
    }

    var fileExists: Bool { FileManager.default.fileExists(atPath: layout.path(for: domain, scope: .currentUser)) }

    @Test func hostNamesAreParsedWithoutPortOrCase() {
        #expect(AccessPolicy.hostName("127.0.0.1:8080") == "127.0.0.1")
        #expect(AccessPolicy.hostName("LocalHost") == "localhost")
        #expect(AccessPolicy.hostName("localhost.:80") == "localhost")
        #expect(AccessPolicy.hostName("[::1]:8080") == "[::1]")
        #expect(AccessPolicy.hostName("evil.example:80:80") == nil)
        #expect(AccessPolicy.hostName("user@host") == nil)
        #expect(AccessPolicy.hostName("") == nil)
    }

    @Test func aForeignHostIsMisdirected() {
        let app = app()
        let r = app.respond(to: ServerRequest.settings(.get, path: "/apps/" + domain, host: "evil.example"))
        #expect(r.status == 421)
        #expect(!r.text.contains("username"))
        #expect(app.respond(to: ServerRequest.settings(.get, path: "/")).status == 400)
        let allowed = self.app(policy: .loopback(additionalHosts: ["settings.internal"]))
        #expect(allowed.respond(to: ServerRequest.settings(.get, path: "/", host: "settings.internal:8080")).status == 200)
    }

    @Test(arguments: [
        (nil as String?, nil as String?, false),          // no token, no headers (curl)
        ("http://evil.example", nil, true),                // other origin, even with the token
        ("null", nil, true),                               // sandboxed frame / data: URL
        (nil, "cross-site", true),
        (nil, "same-site", true),
        ("http://127.0.0.1:9999", nil, true),              // another port is another origin
    ])
    func forgedPostsWriteNothing(origin: String?, site: String?, withToken: Bool) {
        let app = app()
        let token = withToken ? "token=\(app.policy.formToken)&" : ""
        let r = app.respond(to: ServerRequest.settings(.post, path: "/apps/" + domain,
            form: FormData(urlEncoded: token + "action=apply&value:username=mallory"),
            host: "127.0.0.1:8080", origin: origin, fetchSite: site))
        #expect(r.status == 403)
        #expect(r.text.contains("Nothing was changed"))
        #expect(!fileExists)
    }

    @Test func theAppsOwnFormIsAccepted() {
        let app = app()
        let r = app.respond(to: ServerRequest.settings(.post, path: "/apps/" + domain,
            form: FormData(urlEncoded: "token=\(app.policy.formToken)&action=apply&value:username=ada"),
            host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080", fetchSite: "same-origin"))
        #expect(r.status == 303)
        #expect(fileExists)
        let page = app.respond(to: ServerRequest.settings(.get, path: "/apps/" + domain, host: "127.0.0.1")).text
        #expect(page.contains("name=\"token\" value=\"\(app.policy.formToken)\""))
    }

    @Test func beyondLoopbackTheAccessTokenIsNeeded() {
        let app = app(policy: AccessPolicy(allowedHosts: ["192.0.2.1"], accessToken: "secret-token-0123456789"))
        #expect(app.respond(to: ServerRequest.settings(.get, path: "/", host: "192.0.2.1")).status == 401)
        let wrong = app.respond(to: ServerRequest.settings(.get, path: "/", query: FormData(urlEncoded: "token=nope"), host: "192.0.2.1"))
        #expect(wrong.status == 401)
        let grant = app.respond(to: ServerRequest.settings(.get, path: "/apps/x", query: FormData(urlEncoded: "token=secret-token-0123456789"), host: "192.0.2.1"))
        #expect(grant.status == 303)
        #expect(grant.location == "/apps/x")
        #expect(grant.setCookie == "settings_access=secret-token-0123456789; Path=/; HttpOnly; SameSite=Strict")
        let inside = app.respond(to: ServerRequest.settings(.get, path: "/", host: "192.0.2.1", cookies: "a=b; settings_access=secret-token-0123456789"))
        #expect(inside.status == 200)
    }

    @Test func imagesAreRegularFilesInsideTheBundle() throws {
        let copy = dir.path + "/Copy.bundle"
        try FileManager.default.copyItem(atPath: SettingsWebTests.example, toPath: copy)
        try FileManager.default.createSymbolicLink(atPath: copy + "/passwd.png", withDestinationPath: "/etc/passwd")
        try FileManager.default.createSymbolicLink(atPath: copy + "/inside.png", withDestinationPath: "turtle.png")
        let app = app(bundle: copy)
        func image(_ name: String) -> ServerResponse {
            app.respond(to: ServerRequest.settings(.get, path: "/apps/\(domain)/image", query: FormData(fields: [("name", name)]), host: "localhost"))
        }
        #expect(image("turtle.png").status == 200)
        #expect(image("inside.png").status == 200)
        #expect(image("passwd.png").status == 404)
        #expect(image("Root.plist\u{0}.png").status == 404)
        #expect(image("x\n.png").status == 404)
        #expect(image("../Copy.bundle/turtle.png").status == 404)
        #expect(image("/etc/passwd.png").status == 404)
    }

    @Test func anApplicationGroupThatIsAPathIsRefused() throws {
        let bundle = try TemporaryDirectory()
        try bundle.write("Root.plist", .dictionary([
            "ApplicationGroupContainerIdentifier": .string("../../../../\(dir.path.dropFirst())/ESCAPED"),
            "PreferenceSpecifiers": [["Type": "PSTextFieldSpecifier", "Key": "k", "DefaultValue": "v"]],
        ]))
        let app = app(bundle: bundle.path)
        let page = app.respond(to: ServerRequest.settings(.get, path: "/apps/" + domain, host: "localhost"))
        #expect(page.status == 422)
        let r = app.respond(to: ServerRequest.settings(.post, path: "/apps/" + domain,
            form: FormData(urlEncoded: "token=\(app.policy.formToken)&action=apply&value:k=x"), host: "localhost"))
        #expect(r.status == 422)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/ESCAPED.plist"))
    }

    @Test func installCopiesFilesAndRefusesLinksOutOfTheBundle() throws {
        let catalog = SettingsCatalog(directory: dir.path + "/catalog")
        let copy = dir.path + "/Linked.bundle"
        try FileManager.default.copyItem(atPath: SettingsWebTests.example, toPath: copy)
        try FileManager.default.createSymbolicLink(atPath: copy + "/alias.png", withDestinationPath: "turtle.png")
        let installed = try catalog.install(bundleAt: copy, domain: "org.example.Linked")
        let attributes = try FileManager.default.attributesOfItem(atPath: installed.path + "/alias.png")
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        try FileManager.default.createSymbolicLink(atPath: copy + "/passwd.png", withDestinationPath: "/etc/passwd")
        #expect(throws: SettingsBundleError.self) { try catalog.install(bundleAt: copy, domain: "org.example.Linked2") }
        #expect(!FileManager.default.fileExists(atPath: catalog.bundlePath(forDomain: "org.example.Linked2")))
    }
}
