import Foundation
@_spi(Engine) import OpenDefaults
import PropertyList
import Testing
import TestSupport
@testable import ConfigurationProfiles

/// kill -9 of `profiles install` at random points: the managed preferences
/// are always the previous install whole or the new one whole.
@Suite("Configuration profiles: kill -9 during install", .offThePool, .reportsSeeds, .exclusive(.crashes), .timeLimit(.minutes(10)), .requires(.root))
struct ProfileCrashTests {
    /// A profile forcing 1,000 keys over 50 domains, every value naming `version`.
    static func big(_ version: String) -> [LiteralString: PropertyList] {
        let payloads = (0..<50).map { d in
            customPayload("com.example.big\(d)", Dictionary(uniqueKeysWithValues: (0..<20).map { k in
                (LiteralString("key\(k)"), PropertyList.string("\(version)-\(d)-\(k)"))
            }))
        }
        return profileDictionary("com.example.big", payloads, name: "Big \(version)")
    }

    /// Which version the live tree holds (nil: none installed), after checking it is whole.
    static func liveVersion(_ box: ProfileSandbox) throws -> String? {
        let store = ProfileStore(managedDirectory: box.managed)
        let index = try store.index()
        let forced = box.managed + "/profiles/forced"
        guard let record = index.profiles(identifier: "com.example.big").first else {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: forced)) ?? []
            #expect(files.isEmpty, "no profile in the index, yet forced files: \(files.prefix(3))")
            return nil
        }
        let version = String(record.displayName.dropFirst(4))
        let original = try ConfigurationProfile(bytes: store.originalBytes(of: record))
        #expect(original.displayName == record.displayName, "the index and the stored profile disagree")
        for d in 0..<50 {
            let data = try #require(FileManager.default.contents(atPath: forced + "/com.example.big\(d).plist"), "domain \(d) missing from a live tree")
            let values = try PropertyList(decoding: Array(data)).dictionaryValue
            #expect(values?.count == 20 && values?["key7"] == .string("\(version)-\(d)-7"), "domain \(d) is not version \(version)")
        }
        return version
    }

    /// Runs `tool` against the sandbox and kills it at a random moment within `duration` (how long
    /// one run takes here); whether the kill landed before it ended.
    static func runAndKill(_ tool: String, _ arguments: [String], box: ProfileSandbox, within duration: Duration,
                           random: inout SeededRandom) throws -> Bool {
        let delay = Double(random.next() % 1000) / 1000 * (Double(duration.components.attoseconds) / 1e18 + Double(duration.components.seconds))
        let p = try startProcess(tool, arguments, environment: box.environment)
        usleep(UInt32(delay * 1_000_000))
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        return p.terminationReason == .uncaughtSignal
    }

    @Test("40 kills at random points: always the previous install or the next, whole; leftovers removed by the next change")
    func kills() throws {
        let box = try ProfileSandbox()
        defer { box.remove() }
        var random = SeededRandom()
        let paths = try ["A", "B"].map { try box.write(Self.big($0), name: "big-\($0).mobileconfig") }
        // How long an install takes here, to aim the kills inside it.
        let started = ContinuousClock.now
        #expect(try box.profiles(["install", "--path", paths[0]]).status == 0)
        let duration = ContinuousClock.now - started
        #expect(try Self.liveVersion(box) == "A")
        let tool = productsDirectory.appendingPathComponent("profiles").path
        var previous = "A", landedInside = 0
        let rounds = 40
        for round in 0..<rounds {
            let next = round % 2 == 0 ? "B" : "A"
            let killed = try Self.runAndKill(tool, ["install", "--path", paths[next == "A" ? 0 : 1]], box: box, within: duration, random: &random)
            if killed { landedInside += 1 }
            let live = try Self.liveVersion(box)
            #expect(live == previous || live == next, "seed \(random.seed), round \(round): \(live ?? "none")")
            if !killed { #expect(live == next, "seed \(random.seed): an install that finished must be live") }
            previous = live ?? previous
        }
        #expect(landedInside >= rounds / 4, "seed \(random.seed): only \(landedInside) of \(rounds) kills landed before the install ended")
        // The next change removes what the kills left.
        #expect(try box.profiles(["install", "--path", paths[0]]).status == 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: box.managed).filter { $0.hasPrefix(".profiles.new.") }
        #expect(leftovers.isEmpty, "\(leftovers)")
        #expect(try Self.liveVersion(box) == "A")
    }

    /// A profile for Chromium, Firefox and GNOME whose every value names `version`.
    static func applications(_ version: String) -> [LiteralString: PropertyList] {
        profileDictionary("com.example.apps", [
            customPayload("org.chromium.Chromium", ["HomepageLocation": .string("https://\(version)/"), "RestoreOnStartupURLs": .array([.string("https://\(version)/")])]),
            customPayload("org.mozilla.firefox", ["Homepage": .dictionary(["URL": .string("https://\(version)/"), "Locked": true])]),
            customPayload("org.gnome.desktop.background", ["picture-uri": .string("file:///\(version).png"), "primary-color": .string("#\(version)")]),
        ], name: "Apps \(version)")
    }

    /// The version each application file holds (nil: absent), after checking each is whole.
    static func applicationVersions(_ box: ProfileSandbox) throws -> [String: String?] {
        func read(_ path: String) -> String? { FileManager.default.contents(atPath: box.root + path).map { String(decoding: $0, as: UTF8.self) } }
        var out: [String: String?] = [:]
        let chromium = "/etc/chromium/policies/managed/opendefaults-com.example.apps.json"
        out[chromium] = try read(chromium).map { text in
            let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(chromium) is not whole: \(text)")
            let home = (json["HomepageLocation"] as? String) ?? "?"
            #expect((json["RestoreOnStartupURLs"] as? [String]) == [home], "\(chromium) mixes versions: \(text)")
            return String(home.dropFirst(8).dropLast())
        }
        for firefox in ["/etc/firefox/policies/policies.json", "/etc/firefox-esr/policies/policies.json"] {
            out[firefox] = try read(firefox).map { text in
                let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: [String: [String: Any]]], "\(firefox) is not whole: \(text)")
                return String(((json["policies"]?["Homepage"]?["URL"] as? String) ?? "?").dropFirst(8).dropLast())
            }
        }
        let keyfile = "/etc/dconf/db/opendefaults.d/opendefaults-profiles"
        out[keyfile] = read(keyfile).map { text in
            let uri = text.split(separator: "\n").first { $0.hasPrefix("picture-uri=") }.map { String($0.dropFirst("picture-uri=@s 'file:///".count).dropLast(5)) } ?? "?"
            let color = text.split(separator: "\n").first { $0.hasPrefix("primary-color=") }.map { String($0.dropFirst("primary-color=@s '#".count).dropLast()) } ?? "?"
            #expect(uri == color, "\(keyfile) mixes versions: \(text)")
            return uri
        }
        return out
    }

    @Test("kill -9 during installs and removals of a profile for Chromium, Firefox and GNOME: each application file is the old or the new state, whole; the next change brings every one to the live tree",
          .requires(.gnomeSettings))
    func killsWithApplications() throws {
        let box = try ProfileSandbox.withSchemas()
        defer { box.remove() }
        var random = SeededRandom()
        let paths = try ["A", "B"].map { try box.write(Self.applications($0), name: "apps-\($0).mobileconfig") }
        let started = ContinuousClock.now
        #expect(try box.profiles(["install", "--path", paths[0]]).status == 0)
        let duration = ContinuousClock.now - started
        let tool = productsDirectory.appendingPathComponent("profiles").path
        var previous: String? = "A"
        var observed = try Self.applicationVersions(box)
        var landed = 0
        for round in 0..<40 {
            // Install A, install B, or remove: the next state.
            let choice = Int(random.next() % 3)
            let next: String? = choice == 2 ? nil : ["A", "B"][choice]
            let arguments = next.map { ["install", "--path", paths[$0 == "A" ? 0 : 1]] } ?? ["remove", "--identifier", "com.example.apps"]
            if next == nil, previous == nil { continue }
            if try Self.runAndKill(tool, arguments, box: box, within: duration, random: &random) { landed += 1 }
            // Each file is whole and holds: what it held before this command, the live tree's state
            // before it (a change killed after its exchange is finished first by the next), or the next.
            for (path, version) in try Self.applicationVersions(box) {
                let allowed = [observed[path] ?? nil, previous, next]
                #expect(allowed.contains(version), "seed \(random.seed), round \(round): \(path) holds \(version ?? "nothing"); it held \((observed[path] ?? nil) ?? "nothing"), the tree \(previous ?? "nothing"), next \(next ?? "nothing")")
                observed[path] = version
            }
            // The live tree says which state won; the next change (or this one, if it ended) makes the files agree.
            let live = try ProfileStore(managedDirectory: box.managed).index().profiles(identifier: "com.example.apps").first.map { String($0.displayName.dropFirst(5)) }
            previous = live
        }
        #expect(landed >= 10, "seed \(random.seed): only \(landed) kills landed before the change ended")
        // A change after the kills finishes what they interrupted: every file agrees with the live tree.
        #expect(try box.profiles(["install", "--path", paths[1]]).status == 0)
        for (path, version) in try Self.applicationVersions(box) { #expect(version == "B", "\(path) holds \(version ?? "nothing") after the last install") }
        #expect(try box.profiles(["remove", "--identifier", "com.example.apps"]).status == 0)
        for (path, version) in try Self.applicationVersions(box) { #expect(version == nil, "\(path) is left after the removal") }
    }
}
