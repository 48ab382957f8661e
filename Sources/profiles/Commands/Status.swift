import ArgumentParser
import ConfigurationProfiles
@_spi(Engine) import OpenDefaults
import PlatformIO
import PropertyList

/// `profiles status [--user NAME]`: what is forced for a user, and by what.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what is forced for a user (you by default): each domain's keys, the value in force, and the profile that forces it."
    )

    @Option(help: "The user (default: you).")
    var user: String?

    @Option(help: "text (default) or json: {domain: {key: {\"value\": …, \"profile\": ID (when a profile forces it), \"file\": path}}}.")
    var output: OutputFormat = .text

    func run() throws {
        var layout = PreferencesLayout.current
        if let user {
            guard UserAccount.named(user) != nil else { throw fail("no user is called \(user)") }
            layout.userName = user
        }
        let name = layout.userName
        let index: ProfileIndex
        do { index = try ProfileStore(layout: layout).index() } catch { throw fail("\(error)") }
        // Domains forced by profiles, and by files written by hand (everyone's and this user's).
        var domains = Set<String>()
        for target in [ProfileTarget.system, .user(name)] { domains.formUnion(index.forcedBy[target]?.keys ?? [:].keys) }
        for folder in [layout.managedDirectory, layout.managedDirectory + "/users/" + name] {
            for file in FileIO.directoryEntries(folder) ?? [] where file.hasSuffix(".plist") {
                domains.insert(PreferencesLayout.domainName(forFileStem: String(file.dropLast(6))))
            }
        }
        // Which application obeys each key, and from which file.
        let profileStore = ProfileStore(layout: layout)
        let applications = (try? profileStore.applicationManifest()) ?? ApplicationManifest()
        var obeyedBy: [String: [String: [(application: String, path: String)]]] = [:]
        for file in applications.files {
            for e in file.entries where e.forced { obeyedBy[e.domain, default: [:]][e.key, default: []].append((file.application, file.path)) }
        }
        let store = DomainStore(layout: layout)
        let profilesFolder = layout.managedDirectory + "/profiles/"
        var table: [LiteralString: PropertyList] = [:]
        var text = ""
        for domain in domains.sorted(by: { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }) {
            let files = store.forcedValuesByFile(domain)
            var inForce: [LiteralString: (value: PropertyList, path: String)] = [:]
            for file in files { for (key, value) in file.entries { inForce[key] = (value, file.path) } }
            guard !inForce.isEmpty else { continue }
            text += "\(domain):\n"
            var keys: [LiteralString: PropertyList] = [:]
            for key in inForce.keys.sorted(by: { $0.string.unicodeScalars.lexicographicallyPrecedes($1.string.unicodeScalars) }) {
                let (value, path) = inForce[key]!
                // The file in force says who: a profile's derived file, or one written by hand.
                let target: ProfileTarget = path.hasPrefix(profilesFolder + "users/") ? .user(name) : .system
                let profile = path.hasPrefix(profilesFolder) ? index.forcingProfile(domain: domain, key: key.string, target: target) : nil
                let source = profile.map { "\($0.identifier) (\($0.displayName))" } ?? "the file \(path)"
                let shown = value.description.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n    ")
                text += "    \(key.string) = \(shown)    — \(source)\n"
                var entry: [LiteralString: PropertyList] = ["value": value]
                // Only the system's profiles reach applications (their folders are the machine's).
                let apps = target == .system && path.hasPrefix(profilesFolder) ? obeyedBy[domain]?[key.string] ?? [] : []
                var obeying: [PropertyList] = []
                for app in apps {
                    let installed = isInstalled(app.application, store: profileStore)
                    text += "        obeyed by \(app.application): \(app.path)" + (installed ? "\n" : " (not installed yet)\n")
                    obeying.append(.dictionary(["application": .string(app.application), "file": .string(app.path), "installed": .boolean(installed)]))
                }
                if !obeying.isEmpty { entry["applications"] = .array(obeying) }
                entry["profile"] = profile.map { .string($0.identifier) }
                entry["file"] = .string(path)
                keys[key] = .dictionary(entry)
            }
            table[LiteralString(domain)] = .dictionary(keys)
        }
        for note in applications.notes { text += "note: \(note)\n" }
        switch output {
        case .json:
            var out: [UInt8] = []
            ProfileJSON.append(.dictionary(table), to: &out)
            StandardStream.output.write(out + [0x0A])
        case .text:
            say(text.isEmpty ? "Nothing is forced for \(name)\n" : text)
        }
    }
}
