import ArgumentParser
import ConfigurationProfiles
import PlatformIO

/// `profiles remove --identifier ID`.
struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an installed profile: its forced values stop at once (the users' own values are back in force); set-once values stay.",
        discussion: "A profile with PayloadRemovalDisallowed is removed only with --force. Needs root."
    )

    @Option(help: "The profile's PayloadIdentifier.")
    var identifier: String

    @Option(help: "Only the copy installed for this user (a User profile); default: every copy.")
    var user: String?

    @Flag(help: "Remove it even if the profile disallows its removal.")
    var force = false

    func run() throws {
        let result: ProfileStore.RemovalResult
        do {
            result = try ProfileStore().remove(identifier: identifier, target: user.map(ProfileTarget.user), force: force)
        } catch {
            throw fail("\(error)")
        }
        for p in result.removed {
            say("Removed \(p.identifier) (\(p.displayName)) for the \(p.target)\n")
        }
        try reportApplicationProblems(result.applicationProblems)
    }
}
