import ArgumentParser
import ConfigurationProfiles
import PlatformIO
import ProfileSignatures
import PropertyList

/// `profiles show --path FILE | --identifier ID [--output json]`.
struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a profile file (what it would set) or an installed profile (its target, signature, keys and conflicts)."
    )

    @Option(help: "A profile file, installed or not.")
    var path: String?

    @Option(help: "The PayloadIdentifier of an installed profile.")
    var identifier: String?

    @Option(help: "text (default) or json. For a file: {\"forced\": {domain: {key: value}}, \"set_once\": {…}, \"ignored_payloads\": […]}.")
    var output: OutputFormat = .text

    @OptionGroup var trust: TrustOptions

    func validate() throws {
        guard (path == nil) != (identifier == nil) else { throw ValidationError("Give --path FILE or --identifier ID (one of them).") }
    }

    func run() async throws {
        if let path {
            let read = try await ReadProfile.read(path, trustFiles: trust.trustFiles)
            switch output {
            case .json: StandardStream.output.write(ProfileJSON.text(read.profile.preferences) + "\n")
            case .text: say(ProfileText.describe(read.profile, signature: read.signature))
            }
            if case .invalid = read.signature { throw ExitCode(1) }
            return
        }
        guard let identifier else { return }
        let store = ProfileStore()
        let index: ProfileIndex
        do { index = try store.index() } catch { throw fail("\(error)") }
        let matching = index.profiles(identifier: identifier)
        guard !matching.isEmpty else { throw fail("no installed profile has the identifier \(identifier)") }
        let conflicts = index.conflicts.filter { $0.winner == identifier || $0.overridden.contains(identifier) }
        switch output {
        case .json:
            var out: [UInt8] = []
            ProfileJSON.append(.dictionary([
                "profiles": .array(matching.map(ProfileSummary.json)), "conflicts": .array(conflicts.map(ProfileSummary.json)),
            ]), to: &out)
            StandardStream.output.write(out + [0x0A])
        case .text:
            for p in matching {
                var text = "\(p.displayName)\n  identifier: \(p.identifier)\n  uuid: \(p.uuid)\n  for: the \(p.target)\n"
                text += "  installed: \(PropertyList.date(p.installedAt).description) (install order \(p.sequence))\n"
                text += "  signature: \(p.signature)\n  removal disallowed: \(p.removalDisallowed ? "yes" : "no")\n"
                // The values themselves are readable by root (profiles may hold secrets); keys for everyone.
                if let bytes = try? store.originalBytes(of: p), let profile = try? ConfigurationProfile(bytes: bytes) {
                    text += ProfileText.sections(profile.preferences)
                } else {
                    for domain in p.forcedKeys.keys.sorted() { text += "forced \(domain): \(p.forcedKeys[domain]!.joined(separator: ", "))\n" }
                    for domain in p.setOnceKeys.keys.sorted() { text += "set once \(domain): \(p.setOnceKeys[domain]!.joined(separator: ", "))\n" }
                    for type in p.ignoredPayloads { text += "not applicable here: \(type)\n" }
                }
                if p.target == .system {
                    let lines = applicationLines(forced: p.forcedKeys.mapValues(Set.init), setOnce: p.setOnceKeys.mapValues(Set.init), store: store)
                    for line in lines { text += "applications: \(line)\n" }
                }
                say(text)
            }
            for c in conflicts { say(ProfileSummary.line(c)) }
        }
    }
}
