import Foundation
import Testing
@_spi(Engine) @testable import OpenDefaults

@Suite("Where domains live", .timeLimit(.minutes(10)))
struct LayoutTests {
    let layout = PreferencesLayout(
        userDirectory: "/home/ada/.config", systemDirectory: "/usr/local/etc", managedDirectory: "/etc/managed-preferences",
        hostIdentifier: "abc123", userName: "ada")

    @Test("each scope has its folder; by-host files carry the host id")
    func paths() {
        #expect(layout.path(for: "com.example.app", scope: .currentUser) == "/home/ada/.config/com.example.app.plist")
        #expect(layout.path(for: "com.example.app", scope: .currentUserCurrentHost) == "/home/ada/.config/ByHost/com.example.app.abc123.plist")
        #expect(layout.path(for: "com.example.app", scope: .anyUser) == "/usr/local/etc/com.example.app.plist")
        #expect(layout.path(for: "com.example.app", scope: .anyUserCurrentHost) == "/usr/local/etc/ByHost/com.example.app.abc123.plist")
        #expect(layout.managedPaths(for: "com.example.app") == [
            "/etc/managed-preferences/com.example.app.plist",
            "/etc/managed-preferences/profiles/forced/com.example.app.plist",
            "/etc/managed-preferences/users/ada/com.example.app.plist",
            "/etc/managed-preferences/profiles/users/ada/forced/com.example.app.plist",
        ])
    }

    @Test("the global domain is .GlobalPreferences")
    func global() {
        #expect(layout.path(for: "NSGlobalDomain", scope: .currentUser) == "/home/ada/.config/.GlobalPreferences.plist")
        #expect(PreferencesLayout.domainName(forFileStem: ".GlobalPreferences") == "NSGlobalDomain")
    }

    @Test("the environment sets the folders: XDG_CONFIG_HOME, HOME, OPENDEFAULTS_SYSTEM_ROOT")
    func environment() throws {
        let sandbox = try Sandbox()
        var env = sandbox.environment
        let r = try run(helperPath, ["write-sync", "com.example.env", "k", "v"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: sandbox.userDirectory + "/com.example.env.plist"))
        // A relative XDG_CONFIG_HOME is ignored: $HOME/.config is used.
        env["XDG_CONFIG_HOME"] = "relative/path"
        env["HOME"] = sandbox.root.path
        #expect(try run(helperPath, ["write-sync", "com.example.env", "k", "v"], environment: env).status == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.root.path + "/.config/com.example.env.plist"))
    }

    @Test("the host id comes from the machine id under the system root")
    func hostID() throws {
        let sandbox = try Sandbox()
        #expect(PreferencesLayout.hostID(root: sandbox.systemRoot) == "0123456789abcdef0123456789abcdef")
        #expect(!PreferencesLayout.hostID(root: sandbox.root.path + "/nowhere").isEmpty)
    }
}
