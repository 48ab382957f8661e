import ArgumentParser
import ConfigurationProfiles
import PlatformIO
import ProfileSignatures

/// `profiles validate --path FILE`.
struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "validate", abstract: "Check a profile without installing it: its problem and where it is, or what it sets.")

    @Option(help: "The profile file.")
    var path: String

    @Flag(help: "Refuse (exit 1) a profile that sets nothing here or has anything this system does not understand: a payload that sets nothing, a key that is not Forced, Set-Once or Often, an entry without settings.")
    var strict = false

    @OptionGroup var trust: TrustOptions

    func run() async throws {
        let read = try await ReadProfile.read(path, trustFiles: trust.trustFiles)
        if case .invalid(let why) = read.signature { throw fail("\(path): \(why)") }
        let p = read.profile.preferences
        // What this system's applications would read of it: a GSettings key of the wrong type, a date for a browser…
        do { try ApplicationPolicies.check(p, identifier: read.profile.identifier, root: ProfileStore().applicationRoot ?? "") } catch {
            throw fail("\(path): \(error)")
        }
        // What was not understood is said first, on standard error; with --strict it is an error.
        var notes = p.notUnderstood
        if p.isEmpty { notes.append("it sets no preferences on this system") }
        for note in notes { complain("\(path): \(strict ? "error" : "warning"): \(note)") }
        if strict, !notes.isEmpty {
            throw fail("\(path): not valid with --strict (\(plural(notes.count, "problem")))")
        }
        let forcedKeys = p.forced.values.reduce(0) { $0 + $1.count }, onceKeys = p.setOnce.values.reduce(0) { $0 + $1.count }
        var line = "\(path): valid: \(plural(forcedKeys, "forced key")) in \(plural(p.forced.count, "domain"))"
        line += ", \(plural(onceKeys, "set-once key")) in \(plural(p.setOnce.count, "domain"))"
        if !p.ignoredPayloads.isEmpty { line += ", \(plural(p.ignoredPayloads.count, "payload")) not applicable here" }
        if p.isEmpty { line += " (it sets no preferences here)" }
        if !notes.isEmpty { line += ", \(plural(notes.count, "warning"))" }
        line += "; signature: \(read.signature.status?.description ?? "")"
        say(line + "\n")
    }
}
