import ArgumentParser
import ConfigurationProfiles
import OpenDefaults
import PlatformIO
import PropertyList

/// `profiles list [--all] [--output json]`.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List installed profiles: the system's and yours (all users' with --all), with their conflicts."
    )

    @Flag(help: "Every user's profiles, not only yours.")
    var all = false

    @Option(help: "text (default) or json.")
    var output: OutputFormat = .text

    func run() throws {
        let index: ProfileIndex
        do { index = try ProfileStore().index() } catch { throw fail("\(error)") }
        let me = PreferencesLayout.current.userName
        let shown = index.profiles.filter { all || $0.target == .system || $0.target == .user(me) }
        let conflicts = index.conflicts.filter { c in shown.contains { $0.target == c.target } }
        switch output {
        case .json:
            var out: [UInt8] = []
            ProfileJSON.append(.dictionary([
                "profiles": .array(shown.map(ProfileSummary.json)),
                "conflicts": .array(conflicts.map(ProfileSummary.json)),
            ]), to: &out)
            StandardStream.output.write(out + [0x0A])
        case .text:
            if shown.isEmpty { say("There are no configuration profiles installed\(all ? "" : " for the system or for \(me)")\n") }
            for p in shown { say(ProfileSummary.line(p)) }
            for c in conflicts { say(ProfileSummary.line(c)) }
        }
    }
}
