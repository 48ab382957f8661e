import Foundation
import PropertyList
import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
@testable import SettingsBundle

/// Hand-made bundles, each wrong in one way: every problem names the file,
/// the specifier index and the key, and nothing crashes.
@Suite("Validation", .reportsSeeds, .timeLimit(.minutes(10)))
struct ValidationTests {
    func pane(_ specifiers: [PropertyList], extra: [LiteralString: PropertyList] = [:]) -> PropertyList {
        var d: [LiteralString: PropertyList] = ["PreferenceSpecifiers": .array(specifiers)]
        for (k, v) in extra { d[k] = v }
        return .dictionary(d)
    }

    func bundle(_ files: [LiteralString: PropertyList]) throws -> (TemporaryDirectory, SettingsBundle) {
        let dir = try TemporaryDirectory()
        for (name, value) in files { try dir.write(name.string, value) }
        return (dir, try SettingsBundle(path: dir.path))
    }

    func problems(_ b: SettingsBundle, _ severity: SettingsProblem.Severity) -> [SettingsProblem] {
        b.problems.filter { $0.severity == severity }
    }

    @Test func aCorrectBundleHasNoProblems() throws {
        let (_, b) = try bundle(["Root.plist": pane([
            ["Type": "PSGroupSpecifier", "Title": "General"],
            ["Type": "PSTextFieldSpecifier", "Key": "name", "DefaultValue": "Ada"],
            ["Type": "PSToggleSwitchSpecifier", "Key": "on", "DefaultValue": true],
        ])])
        #expect(b.problems.isEmpty)
        #expect(b.defaultValues == ["name": "Ada", "on": true])
    }

    @Test func missingKey() throws {
        let (_, b) = try bundle(["Root.plist": pane([
            ["Type": "PSGroupSpecifier"],
            ["Type": "PSToggleSwitchSpecifier", "DefaultValue": true],
        ])])
        let e = try #require(problems(b, .error).first)
        #expect(e.file == "Root.plist" && e.index == 1)
        #expect(e.description == "error: Root.plist[1]: PSToggleSwitchSpecifier has no Key; expected the defaults key it reads and writes")
    }

    @Test func titlesAndValuesOfDifferentLengths() throws {
        let (_, b) = try bundle(["Root.plist": pane([
            ["Type": "PSMultiValueSpecifier", "Key": "p", "DefaultValue": "A", "Titles": ["A", "B"], "Values": ["A", "B", "C"]],
        ])])
        let e = try #require(problems(b, .error).first)
        #expect(e.key == "p" && e.index == 0)
        #expect(e.message.contains("Titles has 2 entries but Values has 3"))
    }

    @Test func defaultNotAmongValues() throws {
        let (_, b) = try bundle(["Root.plist": pane([
            ["Type": "PSMultiValueSpecifier", "Key": "p", "DefaultValue": "Z", "Titles": ["A"], "Values": ["A"]],
            ["Type": "PSRadioGroupSpecifier", "Key": "r", "DefaultValue": 3, "Titles": ["A"], "Values": [1]],
        ])])
        let w = problems(b, .warning)
        #expect(w.map(\.key) == ["p", "r"])
        #expect(w[0].message == "DefaultValue 'Z' is not among Values")
    }

    @Test func toggleDefaultMatchingNeitherValue() throws {
        let (_, b) = try bundle(["Root.plist": pane([
            ["Type": "PSToggleSwitchSpecifier", "Key": "warp", "DefaultValue": "On", "TrueValue": "Engaged", "FalseValue": "Disabled"],
            ["Type": "PSToggleSwitchSpecifier", "Key": "ok", "DefaultValue": "Disabled", "TrueValue": "Engaged", "FalseValue": "Disabled"],
        ])])
        let w = problems(b, .warning)
        #expect(w.count == 1)
        #expect(w.first?.key == "warp")
        #expect(w.first?.message.contains("matches neither TrueValue") == true)
    }

    @Test func numbersAndBooleansMatchByValueAsTheSettingsAppCompares() throws {
        let (_, b) = try bundle(["Root.plist": pane([
            ["Type": "PSToggleSwitchSpecifier", "Key": "t", "DefaultValue": true, "TrueValue": 1, "FalseValue": 2],
            ["Type": "PSMultiValueSpecifier", "Key": "m", "DefaultValue": 1.0, "Titles": ["a", "b"], "Values": [1, 2]],
            ["Type": "PSMultiValueSpecifier", "Key": "s", "DefaultValue": "1", "Titles": ["a"], "Values": [1]],
        ])])
        #expect(problems(b, .warning).map(\.key) == ["s"])
        #expect(Specifier.valuesMatch(true, 1) && Specifier.valuesMatch(2, 2.0) && !Specifier.valuesMatch("1", 1))
        #expect(!Specifier.valuesMatch(false, 1))
        let toggle = b.root.specifiers[0]
        #expect(toggle.isOn(true) && toggle.isOn(1) && !toggle.isOn(2))
    }

    @Test func sliderDefaultOutsideItsRange() throws {
        let (_, b) = try bundle(["Root.plist": pane([
            ["Type": "PSSliderSpecifier", "Key": "s", "DefaultValue": 11, "MinimumValue": 1, "MaximumValue": 10],
            ["Type": "PSSliderSpecifier", "Key": "t", "DefaultValue": 1],
        ])])
        #expect(problems(b, .warning).first { $0.key == "s" }?.message.contains("outside [MinimumValue, MaximumValue]") == true)
        #expect(problems(b, .error).first { $0.key == "t" }?.message.contains("MinimumValue and MaximumValue") == true)
    }

    @Test func missingChildPane() throws {
        let (_, b) = try bundle(["Root.plist": pane([["Type": "PSChildPaneSpecifier", "Title": "More", "File": "More"]])])
        let e = try #require(problems(b, .error).first)
        #expect(e.file == "More.plist")
        #expect(e.message == "missing child pane (no such file), referenced from Root.plist")
        #expect(b.paneOrder == ["Root.plist"])
    }

    @Test func cyclicChildPanes() throws {
        let (_, b) = try bundle([
            "Root.plist": pane([["Type": "PSChildPaneSpecifier", "File": "A"]]),
            "A.plist": pane([["Type": "PSChildPaneSpecifier", "File": "Sub/B"], ["Type": "PSTextFieldSpecifier", "Key": "a", "DefaultValue": "1"]]),
            "Sub/B.plist": pane([["Type": "PSChildPaneSpecifier", "File": "A"], ["Type": "PSTextFieldSpecifier", "Key": "b", "DefaultValue": "2"]]),
        ])
        let e = try #require(problems(b, .error).first)
        #expect(e.message == "child pane cycle: Root.plist -> A.plist -> Sub/B.plist -> A.plist")
        #expect(b.paneOrder == ["Root.plist", "A.plist", "Sub/B.plist"])
        #expect(b.defaultValues == ["a": "1", "b": "2"])
    }

    @Test func aChildPaneCannotLeaveTheBundle() throws {
        let (_, b) = try bundle(["Root.plist": pane([["Type": "PSChildPaneSpecifier", "File": "../../etc/passwd"]])])
        #expect(problems(b, .error).first?.message.contains("leaves the bundle") == true)
    }

    @Test func oneKeyDeclaredTwiceWithDifferentDefaults() throws {
        let (_, b) = try bundle([
            "Root.plist": pane([
                ["Type": "PSTextFieldSpecifier", "Key": "k", "DefaultValue": "first"],
                ["Type": "PSChildPaneSpecifier", "File": "Child"],
                ["Type": "PSTextFieldSpecifier", "Key": "same", "DefaultValue": "x"],
                ["Type": "PSTextFieldSpecifier", "Key": "same", "DefaultValue": "x"],
            ]),
            "Child.plist": pane([["Type": "PSTextFieldSpecifier", "Key": "k", "DefaultValue": "second"]]),
        ])
        let w = problems(b, .warning)
        #expect(w.count == 1)
        #expect(w.first?.key == "k" && w.first?.file == "Child.plist")
        #expect(b.defaultValues["k"] == "second")
    }

    @Test func malformedPanesAndSpecifiers() throws {
        let dir = try TemporaryDirectory()
        try dir.write("Root.plist", pane([
            ["Type": "PSChildPaneSpecifier", "File": "Text"],
            ["Type": "PSChildPaneSpecifier", "File": "Broken"],
            ["Type": "PSChildPaneSpecifier", "File": "NoSpecifiers"],
            "not a dictionary",
            ["Title": "no type"],
            ["Type": "IASKButtonSpecifier", "Key": "button", "Title": "Press"],
            ["Type": "PSTextFieldSpecifier", "Key": 12],
        ]))
        try dir.write("Text.plist", "just a string")
        try dir.write("Broken.plist", bytes: Array("<?xml version=\"1.0\"?><plist><dict><key>a</key>".utf8))
        try dir.write("NoSpecifiers.plist", ["Title": "x"])
        let b = try SettingsBundle(path: dir.path)
        let text = b.problems.map(\.description)
        #expect(text.contains("error: Text.plist: malformed child pane: the top-level object is a string, not a dictionary"))
        #expect(text.contains { $0.hasPrefix("error: Broken.plist: malformed child pane: XML property list") })
        #expect(text.contains("error: NoSpecifiers.plist: malformed child pane: no PreferenceSpecifiers"))
        #expect(text.contains("error: Root.plist[3]: specifier is not a dictionary (it is a string)"))
        #expect(text.contains { $0.hasPrefix("error: Root.plist[4]: specifier has no Type") })
        #expect(text.contains { $0.hasPrefix("note: Root.plist[5] key 'button': IASKButtonSpecifier is not part of Apple's Settings schema") })
        #expect(text.contains("error: Root.plist[6]: Key is an integer; expected a string"))
        // The foreign specifier is kept.
        #expect(b.root.specifiers.contains { $0.kind == .foreign("IASKButtonSpecifier") })
    }

    @Test func anUnreadableRootThrowsAClearError() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: SettingsBundleError.self) { try SettingsBundle(path: dir.path + "/nothing") }
        let missing = #expect(throws: SettingsBundleError.self) { try SettingsBundle(path: dir.path) }
        #expect(missing?.description.contains("cannot read the root pane") == true)
        try dir.write("Root.plist", ["Title": "x"])
        let notPane = #expect(throws: SettingsBundleError.self) { try SettingsBundle(path: dir.path) }
        #expect(notPane?.reason.contains("PreferenceSpecifiers") == true)
    }

    @Test func hostileBytesNeverCrash() throws {
        let dir = try TemporaryDirectory()
        try dir.write("Root.plist", pane([["Type": "PSChildPaneSpecifier", "File": "Junk"]]))
        var generator = SeededRandom()
        for round in 0..<50 {
            let junk = (0..<Int.random(in: 0..<200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try dir.write("Junk.plist", bytes: Array("bplist00".utf8) + junk)
            try dir.write("en.lproj/Root.strings", bytes: [0xFF, 0xFE] + junk)
            let b = try SettingsBundle(path: dir.path)
            #expect(b.problems.contains { $0.file == "Junk.plist" },
                    "round \(round) (OPENDEFAULTS_SEED=\(generator.seed) replays it): junk \(junk.map { String($0, radix: 16) })")
        }
    }
}

@Suite("Localization and registration", .timeLimit(.minutes(10)))
struct LocalizationTests {
    static let example = repositoryRoot.appendingPathComponent("Examples/AppSettings/Settings.bundle").path

    @Test func theAppSettingsExampleIsCleanAndComplete() throws {
        let b = try SettingsBundle(path: Self.example)
        #expect(b.problems.isEmpty, "\(b.problems)")
        #expect(b.paneOrder == ["Root.plist", "More.plist"])
        #expect(b.defaultValues["protocol"] == "SMTP")
        #expect(b.defaultValues["warp"] == "Engaged")
        #expect(b.defaultValues["warpfactor"] == 5)
        let slider = try #require(b.root.specifiers.first { $0.key == "warpfactor" })
        #expect(slider.minimumValue == 1 && slider.maximumValue == 10)
        #expect(slider.minimumValueImage == "turtle.png" && slider.maximumValueImage == "rabbit.png")
        let password = try #require(b.root.specifiers.first { $0.key == "password" })
        #expect(password.isSecure)
        let toggle = try #require(b.root.specifiers.first { $0.key == "warp" })
        #expect(toggle.storedValue(isOn: false) == "Disabled")
        #expect(toggle.isOn("Engaged") && !toggle.isOn("Disabled"))
    }

    @Test func stringsAreLocalizedByPreferredLanguages() throws {
        let b = try SettingsBundle(path: Self.example)
        #expect(b.localizedString("Warp Drive", table: "Root", languages: ["de-DE", "en"]) == "Warpantrieb")
        // fr.lproj is UTF-16.
        #expect(b.localizedString("Protocol", table: "Root", languages: ["fr-CA"]) == "Protocole")
        // A key the preferred table lacks falls back through the list, then to the key.
        #expect(b.localizedString("Warp Factor", table: "Root", languages: ["fr", "de"]) == "Warpfaktor")
        #expect(b.localizedString("Nowhere", table: "Root", languages: ["de"]) == "Nowhere")
        #expect(LanguageMatching.languages(acceptLanguage: "fr;q=0.5, de-CH , en;q=0.8") == ["de-CH", "en", "fr"])
    }

    @Test func registerSettingsBundleRegistersEveryPane() throws {
        let dir = try TemporaryDirectory()
        let store = DomainStore(layout: PreferencesLayout(
            userDirectory: dir.path, systemDirectory: dir.path + "/sys", managedDirectory: dir.path + "/managed",
            hostIdentifier: "host", userName: "tester"))
        let defaults = Defaults(domainName: "com.example.AppSettings", store: store, arguments: [])
        let b = try defaults.register(settingsBundleAt: Self.example)
        #expect(defaults.string(forKey: "protocol") == "SMTP")
        #expect(defaults.integer(forKey: "warpfactor") == 5)
        #expect(defaults.string(forKey: "favoriteTeacher") == "Mr. Chan")  // from the child pane
        #expect(b.keysWithoutDefault == ["username", "password"])
        // Registered, never saved.
        #expect(defaults.persistentDomain(forName: "com.example.AppSettings") == nil)
    }
}

@Suite("Hostile bundles", .timeLimit(.minutes(10)))
struct HostileBundleTests {
    @Test(.offThePool) func childPanesNestedTenThousandDeepStopAtTheLimit() throws {
        let dir = try TemporaryDirectory()
        try dir.write("Root.plist", .dictionary(["PreferenceSpecifiers": [["Type": "PSChildPaneSpecifier", "File": "P0"]]]))
        for k in 0..<10_000 {
            try dir.write("P\(k).plist", .dictionary(["PreferenceSpecifiers": [
                ["Type": "PSChildPaneSpecifier", "File": .string("P\(k + 1)")],
                ["Type": "PSTextFieldSpecifier", "Key": .string("k\(k)"), "DefaultValue": "v"],
            ]]))
        }
        let b = try SettingsBundle(path: dir.path)
        #expect(b.paneOrder.count == 64)
        #expect(b.problems.contains { $0.severity == .error && $0.message.contains("nested deeper than 64") })
    }

    @Test func hugeFilesAndFifosAreNotRead() throws {
        let dir = try TemporaryDirectory()
        try dir.write("Root.plist", .dictionary(["PreferenceSpecifiers": [
            ["Type": "PSChildPaneSpecifier", "File": "Fifo"],
            ["Type": "PSChildPaneSpecifier", "File": "Huge"],
        ]]))
        #expect(mkfifo(dir.path + "/Fifo.plist", 0o644) == 0)
        // A sparse 17 MiB pane and table: refused before reading.
        for name in ["Huge.plist", "en.lproj/Root.strings"] {
            try dir.write(name, bytes: [])
            #expect(truncate(dir.path + "/" + name, 17 << 20) == 0)
        }
        let b = try SettingsBundle(path: dir.path)
        #expect(b.problems.contains { $0.file == "Fifo.plist" && $0.message.contains("not a regular file") })
        #expect(b.problems.contains { $0.file == "Huge.plist" && $0.message.contains("larger than 16 MiB") })
        #expect(b.problems.contains { $0.file == "en.lproj/Root.strings" && $0.message.contains("larger than 16 MiB") })
    }
}
