import ArgumentParser
import ConfigurationProfiles
import PlatformIO
import ProfileSignatures
import PropertyList

/// `profiles`: configuration profiles (`.mobileconfig`) for managed preferences.
@main
struct ProfilesTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: "Install, remove, list and check configuration profiles (.mobileconfig) that set managed preferences.",
        discussion: """
            A profile's preference payloads (com.apple.ManagedClient.preferences with Forced, Set-Once and \
            Often, or custom-settings payloads named for their domain) become managed preferences; other \
            payloads (Wi-Fi, certificates, restrictions, …) do not apply on this system and are listed as such. \
            Installed profiles live in <managed>/profiles (see profiles(1)); installing and removing need root.
            """,
        version: "profiles (OpenDefaults) \(OpenDefaultsVersion.string)",
        subcommands: [Install.self, Remove.self, List.self, Show.self, Validate.self, Status.self, Apply.self]
    )
}

/// Prints `message` to standard error as `profiles: message` and exits 1.
func fail(_ message: String) -> ExitCode {
    StandardStream.error.write("profiles: \(message)\n")
    return ExitCode(1)
}

/// A profile file read and checked: its bytes, what it sets, and what its signature proved.
struct ReadProfile {
    var path: String
    var bytes: [UInt8]
    var profile: ConfigurationProfile
    var signature: ProfileSignatureCheck.Outcome

    /// Reads the profile at `path`, or says why not (naming the file) and exits 1.
    static func read(_ path: String, trustFiles: [String]) async throws -> ReadProfile {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path, limit: ConfigurationProfile.maximumSize)
        } catch {
            throw fail("\(error)")
        }
        let profile: ConfigurationProfile
        do { profile = try ConfigurationProfile(bytes: bytes) } catch { throw fail("\(path): \(error)") }
        let signature = await ProfileSignatureCheck.check(bytes, trustFiles: trustFiles)
        return ReadProfile(path: path, bytes: bytes, profile: profile, signature: signature)
    }
}

/// Options every command that checks signatures shares.
struct TrustOptions: ParsableArguments {
    @Option(name: .customLong("trust"), help: ArgumentHelp("A PEM file of certificates to trust as signers' roots (repeatable); added to the system's CA bundle and <root>/etc/opendefaults/profile-trust.", valueName: "file"))
    var extraTrust: [String] = []

    var trustFiles: [String] { ProfileSignatureCheck.defaultTrustFiles() + extraTrust }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// Text helpers for counts.
func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
