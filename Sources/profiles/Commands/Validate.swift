import ArgumentParser
import ConfigurationProfiles
import PlatformIO
import ProfileSignatures

/// `profiles validate --path FILE`.
struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check a profile without installing it: its problem and where it is, or what it sets.")

    @Option(help: "The profile file.")
    var path: String

    @OptionGroup var trust: TrustOptions

    func run() async throws {
        let read = try await ReadProfile.read(path, trustFiles: trust.trustFiles)
        if case .invalid(let why) = read.signature { throw fail("\(path): \(why)") }
        let p = read.profile.preferences
        let forcedKeys = p.forced.values.reduce(0) { $0 + $1.count }, onceKeys = p.setOnce.values.reduce(0) { $0 + $1.count }
        var line = "\(path): valid: \(plural(forcedKeys, "forced key")) in \(plural(p.forced.count, "domain"))"
        line += ", \(plural(onceKeys, "set-once key")) in \(plural(p.setOnce.count, "domain"))"
        if !p.ignoredPayloads.isEmpty { line += ", \(plural(p.ignoredPayloads.count, "payload")) not applicable here" }
        if p.isEmpty { line += " (it sets no preferences here)" }
        line += "; signature: \(read.signature.status?.description ?? "")"
        say(line + "\n")
    }
}
