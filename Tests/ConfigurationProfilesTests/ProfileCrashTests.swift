import Foundation
@_spi(Engine) import OpenDefaults
import PropertyList
import Testing
import TestSupport
@testable import ConfigurationProfiles

/// kill -9 of `profiles install` at random points: the managed preferences
/// are always the previous install whole or the new one whole.
@Suite("Configuration profiles: kill -9 during install", .reportsSeeds, .timeLimit(.minutes(10)), .requires(.root))
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
            let p = Process()
            p.executableURL = URL(fileURLWithPath: tool)
            p.arguments = ["install", "--path", paths[next == "A" ? 0 : 1]]
            p.environment = box.environment
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            let delay = Double(random.next() % 1000) / 1000 * (Double(duration.components.attoseconds) / 1e18 + Double(duration.components.seconds))
            try p.run()
            usleep(UInt32(delay * 1_000_000))
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let killed = p.terminationReason == .uncaughtSignal
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
}
