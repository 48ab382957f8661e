import Foundation
import Testing
@testable import SettingsBundle
import PropertyList

/// The catalog's file handling (all through PlatformIO): what an install
/// copies, what a refused install leaves, what uninstalling nothing says.
@Suite(.timeLimit(.minutes(10))) struct SettingsCatalogTests {
    let dir: TemporaryDirectory
    init() throws { dir = try TemporaryDirectory() }

    private func kind(_ path: String) throws -> FileAttributeType? {
        try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
    }

    @Test func aLinkToAFolderInsideTheBundleIsCopiedAsThatFolder() throws {
        let copy = dir.path + "/Nested.bundle"
        try FileManager.default.copyItem(atPath: SettingsWebTests.example, toPath: copy)
        try FileManager.default.createDirectory(atPath: copy + "/Art/Small", withIntermediateDirectories: true)
        try Data("icon".utf8).write(to: URL(fileURLWithPath: copy + "/Art/Small/icon.txt"))
        try FileManager.default.createSymbolicLink(atPath: copy + "/ArtAlias", withDestinationPath: "Art")
        let catalog = SettingsCatalog(directory: dir.path + "/catalog")
        let installed = try catalog.install(bundleAt: copy, domain: "org.example.Nested")
        #expect(try kind(installed.path + "/ArtAlias") == .typeDirectory)
        #expect(try kind(installed.path + "/ArtAlias/Small/icon.txt") == .typeRegular)
        #expect(FileManager.default.contents(atPath: installed.path + "/Art/Small/icon.txt") == Data("icon".utf8))
        // Made 0755 (less the umask): the owner's, never writable by others.
        let mode = try #require(FileManager.default.attributesOfItem(atPath: installed.path + "/Art")[.posixPermissions] as? Int)
        #expect(mode & 0o700 == 0o700 && mode & 0o022 == 0, "mode \(String(mode, radix: 8))")
        // No staging folder is left next to the bundle.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/catalog/org.example.Nested") == ["Settings.bundle"])
    }

    @Test func aRefusedInstallLeavesTheInstalledBundleAsItWas() throws {
        let catalog = SettingsCatalog(directory: dir.path + "/catalog")
        try catalog.install(bundleAt: SettingsWebTests.example, domain: "org.example.Kept")
        let copy = dir.path + "/Evil.bundle"
        try FileManager.default.copyItem(atPath: SettingsWebTests.example, toPath: copy)
        try FileManager.default.createSymbolicLink(atPath: copy + "/shadow.png", withDestinationPath: "/etc/hostname")
        #expect {
            try catalog.install(bundleAt: copy, domain: "org.example.Kept")
        } throws: { error in
            guard let error = error as? SettingsBundleError else { return false }
            return error.path.hasSuffix("shadow.png") && error.reason.contains("outside the bundle")
        }
        #expect(catalog.isInstalled("org.example.Kept"))
        #expect(!FileManager.default.fileExists(atPath: catalog.bundlePath(forDomain: "org.example.Kept") + "/shadow.png"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/catalog/org.example.Kept") == ["Settings.bundle"])
    }

    @Test func uninstallingWhatIsNotInstalledSaysSo() throws {
        let catalog = SettingsCatalog(directory: dir.path + "/catalog")
        #expect {
            try catalog.uninstall(domain: "org.example.Never")
        } throws: { error in
            (error as? SettingsBundleError)?.reason.contains("no bundle is installed for org.example.Never") == true
        }
    }

    @Test func theCatalogFolderFollowsTheEnvironmentGiven() {
        #expect(SettingsCatalog(environment: ["HOME": "/home/ada"]).directory == "/home/ada/.local/share/settings-bundles")
        #expect(SettingsCatalog(environment: ["HOME": "/home/ada", "XDG_DATA_HOME": "/data"]).directory == "/data/settings-bundles")
    }

    @Test func aPlistInASubfolderThatNoPaneReadsIsNoted() throws {
        let copy = dir.path + "/Extra.bundle"
        try FileManager.default.copyItem(atPath: SettingsWebTests.example, toPath: copy)
        try dir.write("Extra.bundle/Deep/Er/Orphan.plist", ["PreferenceSpecifiers": []])
        let bundle = try SettingsBundle(path: copy)
        #expect(bundle.problems.contains { $0.file == "Deep/Er/Orphan.plist" && $0.message.contains("not referenced") })
    }
}
