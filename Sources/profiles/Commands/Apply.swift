import ArgumentParser
import ConfigurationProfiles
import PlatformIO
import PropertyList

/// `profiles apply`: the set-once values due for this user.
struct Apply: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Write the set-once values of installed profiles into your own domains (those never applied, or newer by their timestamp).",
        discussion: "Run at session start (the Debian package does, through a systemd user unit); the values are ordinary ones you may change."
    )

    @Flag(help: "Print nothing when all goes well.")
    var quiet = false

    func run() throws {
        let applied: [SetOnceEntry]
        do { applied = try SetOnceApplication().apply() } catch { throw fail("\(error)") }
        guard !quiet else { return }
        for e in applied {
            say("set once: \(e.domain): \(e.values.keys.map(\.string).sorted().joined(separator: ", ")) (from \(e.profile))\n")
        }
    }
}
