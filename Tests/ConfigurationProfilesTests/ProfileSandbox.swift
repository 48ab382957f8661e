import Foundation
@_spi(Engine) import OpenDefaults
import PropertyList
import TestSupport

/// A system root and a user folder for one test: `profiles` and `defaults`
/// run against it through `OPENDEFAULTS_SYSTEM_ROOT` and `XDG_CONFIG_HOME`,
/// and an in-process store watches the same files.
struct ProfileSandbox {
    let root: String
    let userFolder: String
    /// The user whose per-user managed files apply in `store` (an account that exists: `nobody`).
    let userName = "nobody"

    init() throws {
        root = try ScratchFolders.make("profiles-root").path
        userFolder = root + "/home/config"
        try FileManager.default.createDirectory(atPath: userFolder, withIntermediateDirectories: true)
        // Root-owned and not writable by others all the way down, as the trust checks require.
        for path in [root, root + "/home", userFolder] { chmod(path, 0o755) }
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    /// A sandbox whose system root sees the machine's GSettings schemas (a link to them).
    static func withSchemas() throws -> ProfileSandbox {
        let box = try ProfileSandbox()
        try FileManager.default.createDirectory(atPath: box.root + "/usr/share/glib-2.0", withIntermediateDirectories: true)
        for path in [box.root + "/usr", box.root + "/usr/share", box.root + "/usr/share/glib-2.0"] { chmod(path, 0o755) }
        try FileManager.default.createSymbolicLink(atPath: box.root + "/usr/share/glib-2.0/schemas", withDestinationPath: "/usr/share/glib-2.0/schemas")
        return box
    }

    var managed: String { root + "/etc/managed-preferences" }

    var layout: PreferencesLayout {
        PreferencesLayout(userDirectory: userFolder, systemDirectory: root + "/usr/local/etc", managedDirectory: managed,
                          hostIdentifier: "host", userName: userName)
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["OPENDEFAULTS_SYSTEM_ROOT"] = root
        env["XDG_CONFIG_HOME"] = userFolder
        return env
    }

    /// Writes a profile file and returns its path.
    func write(_ profile: [LiteralString: PropertyList], name: String, format: PropertyListFormat = .xml) throws -> String {
        let path = root + "/" + name
        try PropertyList.dictionary(profile).data(as: format).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs `profiles` against the sandbox.
    func profiles(_ arguments: [String]) throws -> ToolResult {
        try runTool("profiles", arguments, environment: environment)
    }

    /// Runs `defaults` against the sandbox.
    func defaults(_ arguments: [String]) throws -> ToolResult {
        try runTool("defaults", arguments, environment: environment)
    }

    /// The live tree's index, as bytes (to show that a refused change left it alone).
    var indexBytes: Data? { FileManager.default.contents(atPath: managed + "/profiles/index.plist") }
}

/// A profile dictionary: `payloads` under the usual identity keys.
func profileDictionary(_ identifier: String, _ payloads: [PropertyList], scope: String = "System", name: String? = nil,
                       extra: [LiteralString: PropertyList] = [:]) -> [LiteralString: PropertyList] {
    var p: [LiteralString: PropertyList] = [
        "PayloadType": "Configuration", "PayloadIdentifier": .string(identifier), "PayloadUUID": .string(UUID().uuidString),
        "PayloadVersion": 1, "PayloadDisplayName": .string(name ?? identifier), "PayloadScope": .string(scope),
        "PayloadContent": .array(payloads),
    ]
    p.merge(extra) { _, new in new }
    return p
}

/// A custom-settings payload forcing `values` in `domain`.
func customPayload(_ domain: String, _ values: [LiteralString: PropertyList]) -> PropertyList {
    var p: [LiteralString: PropertyList] = ["PayloadType": .string(domain), "PayloadIdentifier": .string(domain + ".payload"), "PayloadUUID": "P"]
    p.merge(values) { _, new in new }
    return .dictionary(p)
}

/// A `com.apple.ManagedClient.preferences` payload: `domain` → level (`Forced`, `Set-Once`, `Often`) → values, with a timestamp.
func mcxPayload(_ domain: String, _ level: String, _ values: [LiteralString: PropertyList], timestamp: Date? = nil) -> PropertyList {
    var element: [LiteralString: PropertyList] = ["mcx_preference_settings": .dictionary(values)]
    if let timestamp { element["mcx_data_timestamp"] = .date(timestamp) }
    return [
        "PayloadType": "com.apple.ManagedClient.preferences", "PayloadIdentifier": "mcx", "PayloadUUID": "M",
        "PayloadContent": .dictionary([LiteralString(domain): .dictionary([LiteralString(level): [.dictionary(element)]])]),
    ]
}
