import ArgumentParser
import ConfigurationProfiles
import OpenDefaults
import PlatformIO
import ProfileSignatures

/// `profiles install --path FILE [--user NAME]`.
struct Install: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install a profile: its forced values take effect at once in every process; its set-once values are written once.",
        discussion: """
            A System profile applies to every user; a User profile to one user: --user NAME, or the user who ran sudo. \
            Installing a profile with the identifier of an installed one (for the same user) replaces it. Needs root.
            """
    )

    @Option(help: "The profile file (.mobileconfig: XML, binary, or CMS-signed).")
    var path: String

    @Option(help: "For a User profile: the user it applies to (default: $SUDO_USER).")
    var user: String?

    @Option(help: "Which signatures are accepted: any (default), signed (refuse unsigned), verified (refuse unsigned and unverified). A signature that does not match its profile is always refused.")
    var signaturePolicy: SignaturePolicy = .any

    @OptionGroup var trust: TrustOptions

    enum SignaturePolicy: String, ExpressibleByArgument, CaseIterable {
        case any, signed, verified
    }

    func run() async throws {
        let read = try await ReadProfile.read(path, trustFiles: trust.trustFiles)
        let profile = read.profile
        guard let signature = read.signature.status else {
            if case .invalid(let why) = read.signature { throw fail("\(path): \(why); nothing was installed") }
            throw ExitCode(1)
        }
        switch (signaturePolicy, signature) {
        case (.signed, .unsigned), (.verified, .unsigned):
            throw fail("\(path): the profile is not signed and the policy (--signature-policy \(signaturePolicy.rawValue)) requires a signature; nothing was installed")
        case (.verified, .unverified(let signer, let why)):
            throw fail("\(path): the signature of \(signer) is not verified (\(why)) and the policy requires a verified one; nothing was installed")
        default: break
        }
        for note in profile.preferences.notUnderstood { complain("\(path): warning: \(note)") }
        if profile.preferences.isEmpty, !profile.preferences.notUnderstood.isEmpty {
            throw fail("\(path): nothing was installed: the profile sets no preferences on this system, and \(plural(profile.preferences.notUnderstood.count, "thing")) in it \(profile.preferences.notUnderstood.count == 1 ? "was" : "were") not understood (above)")
        }
        let target: ProfileTarget
        switch profile.scope {
        case .system:
            if user != nil { throw fail("\(path): \(profile.identifier) is a System profile (for every user); --user does not apply") }
            target = .system
        case .user:
            guard let name = user ?? Environment["SUDO_USER"], !name.isEmpty else {
                throw fail("\(path): \(profile.identifier) is a User profile: name its user with --user NAME")
            }
            guard UserAccount.named(name) != nil else { throw fail("no user is called \(name)") }
            target = .user(name)
        }
        let result: ProfileStore.InstallResult
        do {
            result = try ProfileStore().install(profile, bytes: read.bytes, signature: signature, target: target)
        } catch {
            throw fail("\(path): \(error)")
        }
        let p = profile.preferences
        let forcedKeys = p.forced.values.reduce(0) { $0 + $1.count }, onceKeys = p.setOnce.values.reduce(0) { $0 + $1.count }
        var out = "\(result.replaced == nil ? "Installed" : "Replaced") \(profile.identifier) (\(profile.displayName)) for the \(target): "
        out += "\(plural(forcedKeys, "forced key")) in \(plural(p.forced.count, "domain")), \(plural(onceKeys, "set-once key")); signature: \(signature)\n"
        if p.isEmpty { out += "It sets no preferences on this system.\n" }
        for type in p.ignoredPayloads { out += "not applicable here: \(type)\n" }
        // Only the system's profiles reach applications (their folders are the machine's).
        if target == .system { for line in applicationLines(for: p, store: ProfileStore()) { out += line + "\n" } }
        for c in result.conflicts {
            out += "conflict: \(c.domain) \(c.key) is forced differently by \(c.overridden.joined(separator: ", ")); \(c.winner) is in force (the latest installed wins)\n"
        }
        say(out)
        try reportApplicationProblems(result.applicationProblems)
        guard !p.setOnce.isEmpty else { return }
        if case .user(let name) = target {
            applySetOnce(as: name)
        } else {
            say("Set-once values are written into each user's domains at their next `profiles apply` (run at session start).\n")
        }
    }

    /// Writes the set-once values into `name`'s own domains, as that user (`setpriv`).
    func applySetOnce(as name: String) {
        guard let account = UserAccount.named(name) else { return }
        var command = [
            "/usr/bin/setpriv", "--reuid=\(account.userID)", "--regid=\(account.groupID)", "--init-groups", "--reset-env",
            "/usr/bin/env",
        ]
        if let root = Environment["OPENDEFAULTS_SYSTEM_ROOT"] { command.append("OPENDEFAULTS_SYSTEM_ROOT=\(root)") }
        command += [ChildProcess.currentExecutable, "apply"]
        let status: Int32
        do { status = try ChildProcess.run(command) } catch {
            complain("the set-once values were not written for \(name) (\(error)); they will be at the user's next `profiles apply`")
            return
        }
        if status != 0 {
            complain("writing the set-once values as \(name) failed (status \(status)); they will be at the user's next `profiles apply`")
        }
    }
}
