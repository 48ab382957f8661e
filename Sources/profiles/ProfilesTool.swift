import ArgumentParser
import ConfigurationProfiles
import PlatformIO
import PropertyList

/// `profiles`: configuration profiles (`.mobileconfig`) for managed preferences.
@main
struct ProfilesTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: "Read and check configuration profiles (.mobileconfig) that set managed preferences.",
        discussion: """
            A profile's preference payloads (com.apple.ManagedClient.preferences with Forced and \
            Set-Once, or custom-settings payloads named for their domain) become managed preferences; \
            other payloads (Wi-Fi, certificates, restrictions, …) do not apply on this system and are listed as such.
            Installing profiles (install, remove, list, status) is not implemented yet.
            """,
        version: "profiles (OpenDefaults) \(OpenDefaultsVersion.string)",
        subcommands: [Show.self, Validate.self]
    )
}

/// Reads the profile at `path`, or says why not (naming the file) and exits 1.
func readProfile(_ path: String) throws -> ConfigurationProfile {
    let bytes: [UInt8]
    do {
        bytes = try FileIO.read(path, limit: ConfigurationProfile.maximumSize)
    } catch {
        StandardStream.error.write("profiles: \(error)\n")
        throw ExitCode(1)
    }
    do {
        return try ConfigurationProfile(bytes: bytes)
    } catch {
        StandardStream.error.write("profiles: \(path): \(error)\n")
        throw ExitCode(1)
    }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show what a profile file would set: its payloads, domains, keys and values.")

    @Option(help: "The profile file.")
    var path: String

    @Option(help: "text (default) or json: {\"forced\": {domain: {key: value}}, \"set_once\": {…}, \"ignored_payloads\": […]}.")
    var output: OutputFormat = .text

    func run() throws {
        let profile = try readProfile(path)
        switch output {
        case .json: StandardStream.output.write(ProfileJSON.text(profile.preferences) + "\n")
        case .text: StandardStream.output.write(ProfileText.describe(profile))
        }
    }
}

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check a profile without installing it: its problem and where it is, or what it sets.")

    @Option(help: "The profile file.")
    var path: String

    func run() throws {
        let profile = try readProfile(path)
        let p = profile.preferences
        let forcedKeys = p.forced.values.reduce(0) { $0 + $1.count }, onceKeys = p.setOnce.values.reduce(0) { $0 + $1.count }
        var line = "\(path): valid: \(forcedKeys) forced key\(forcedKeys == 1 ? "" : "s") in \(p.forced.count) domain\(p.forced.count == 1 ? "" : "s")"
        line += ", \(onceKeys) set-once key\(onceKeys == 1 ? "" : "s") in \(p.setOnce.count) domain\(p.setOnce.count == 1 ? "" : "s")"
        if !p.ignoredPayloads.isEmpty { line += ", \(p.ignoredPayloads.count) payload\(p.ignoredPayloads.count == 1 ? "" : "s") not applicable here" }
        if p.isEmpty { line += " (it sets no preferences here)" }
        StandardStream.output.write(line + "\n")
    }
}
