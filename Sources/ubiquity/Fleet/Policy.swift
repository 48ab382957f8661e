import ArgumentParser
import ConfigurationProfiles
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PlatformIO
import PropertyList
import UbiquityFleet
import X509
import Foundation

/// `ubiquity policy publish|remove|list`: an organisation's declarations, signed here with the
/// administrator's key and sent with the login's token (the organisation's administrator token).
struct Policy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Publish, withdraw and list the profiles each group of an organisation's machines carries (signed declarations).",
        discussion: """
            Log in first with the organisation's administrator token (ubiquity login URL). A \
            group's declaration is its whole set of profiles: publishing replaces it, at the next \
            revision; every machine of the group applies it within seconds and reports.
            """,
        subcommands: [Publish.self, Remove.self, List.self, HandOver.self]
    )

    /// The administrator's signing certificate and key.
    struct Signing: ParsableArguments {
        @Option(name: .customLong("signing-cert"), help: "The certificate to sign with (PEM): the organisation's, or one it issued.")
        var certificate: String

        @Option(name: .customLong("signing-key"), help: "Its private key (PEM, PKCS #8 or SEC 1; keep it 0600).")
        var key: String

        @Option(name: .customLong("chain"), help: "A PEM file of intermediate certificates to carry (between the signing certificate and the organisation's).")
        var chain: String?

        @Flag(name: .customLong("skip-signer-check"),
              help: "Send it even when its signature does not verify under the organisation's certificate as the server holds it (every machine will refuse it: for testing that they do).")
        var skipSignerCheck = false

        func load() throws -> (Certificate, Certificate.PrivateKey, [Certificate]) {
            do {
                let certificate = try DeclarationSignature.certificate(try FileIO.read(self.certificate, limit: 1 << 20))
                let keyText = String(decoding: try FileIO.read(key, limit: 1 << 20), as: UTF8.self)
                let privateKey = try Certificate.PrivateKey(pemEncoded: keyText)
                var intermediates: [Certificate] = []
                if let chain {
                    let text = String(decoding: try FileIO.read(chain, limit: 1 << 20), as: UTF8.self)
                    intermediates = try DeclarationSignature.certificates(inPEM: text)
                }
                guard privateKey.publicKey == certificate.publicKey else {
                    throw fail("\(key) is not the key of \(self.certificate)")
                }
                return (certificate, privateKey, intermediates)
            } catch let exit as ExitCode {
                throw exit
            } catch {
                throw fail("cannot read the signing certificate or key: \(error)")
            }
        }
    }

    /// The login's account (the organisation's administrator token).
    static func transport() throws -> (HTTPUbiquityTransport, UbiquityAccount) {
        guard let account = UbiquityAccount.current() else {
            throw fail("not logged in: log in with the organisation's administrator token (`ubiquity login URL`)")
        }
        return (HTTPUbiquityTransport(account: account), account)
    }

    /// The group's declaration as the server holds it: its entry's revision, the revision summary's
    /// entry revision, and its (unverified) content.
    static func current(_ transport: HTTPUbiquityTransport, group: String) async throws -> (base: Int64, summaryBase: Int64, declaration: Declaration?) {
        let answer: UbiquityChangesResponse
        do { answer = try await transport.changes(store: UbiquityFleetNames.policyStore(group: group), after: 0, wait: nil) } catch {
            throw fail("cannot read group \(group)'s declaration: \(error)")
        }
        let summaryBase = answer.entries.first { $0.key == UbiquityFleetNames.revisionKey }?.revision ?? 0
        guard let entry = answer.entries.first(where: { $0.key == UbiquityFleetNames.declarationKey }) else { return (0, summaryBase, nil) }
        guard let text = entry.value, case .data(let signed)? = UbiquityWireValue.decode(text)?.value,
              let content = try? SignedProfile.content(of: Array(signed)) else { return (entry.revision, summaryBase, nil) }
        return (entry.revision, summaryBase, try? Declaration(bytes: content))
    }

    /// The organisation's certificate as the server holds it now (`entries`: its store's).
    static func organizationCertificate(in entries: [UbiquityWireEntry]) -> (certificate: Certificate, fingerprint: String)? {
        guard let text = entries.first(where: { $0.key == UbiquityFleetNames.certificateKey })?.value,
              case .data(let der)? = UbiquityWireValue.decode(text)?.value,
              let certificate = try? DeclarationSignature.certificate(Array(der)) else { return nil }
        return (certificate, DeclarationSignature.fingerprint(of: Array(der)))
    }

    /// Refuses to send what every machine would refuse: `signed` must verify under the
    /// organisation's certificate as the server holds it, as a machine checks it against the one
    /// it pinned (`DeclarationSignature`, the same code). This is the server's word, so it only
    /// spares the administrator a mistake (a stranger's key, an expired certificate, the old key
    /// after a hand-over); machines still check against what they pinned. `nothing`: what the
    /// refusal says was not done. The refusal gives the certificate's fingerprint: one the
    /// administrator does not know is a sign that someone replaced it on the server.
    static func checkSigner(_ signed: [UInt8], what: String, organization: [UbiquityWireEntry], signing: Signing, nothing: String) async throws {
        guard !signing.skipSignerCheck else { return }
        guard let (certificate, fingerprint) = organizationCertificate(in: organization) else {
            throw fail("the server holds no readable certificate of the organisation, so machines would refuse the \(what); \(nothing)")
        }
        do { _ = try await DeclarationSignature.verifiedContent(signed, pinned: certificate, what: what) } catch {
            throw fail("\(error.message) (the server holds the organisation's certificate as SHA-256 \(fingerprint)): every machine would refuse it; "
                       + "\(nothing) (--skip-signer-check sends it all the same)")
        }
    }

    /// The organisation's store (its certificate, its last hand-over).
    static func organization(_ transport: HTTPUbiquityTransport) async throws -> [UbiquityWireEntry] {
        do { return try await transport.changes(store: UbiquityFleetNames.organizationStore, after: 0, wait: nil).entries } catch {
            throw fail("cannot read the organisation's certificate: \(error)")
        }
    }

    /// Signs and commits a group's next declaration.
    static func publish(_ profiles: [[UInt8]], group: String, signing: Signing) async throws -> Int64 {
        let (certificate, key, chain) = try signing.load()
        let (transport, account) = try transport()
        let (base, summaryBase, previous) = try await current(transport, group: group)
        let revision = (previous?.revision ?? 0) + 1
        let declaration = Declaration(organization: account.name, group: group, revision: revision, issued: Date(), profiles: profiles)
        let signed: [UInt8]
        do { signed = try DeclarationSignature.sign(declaration.content(), certificate: certificate, key: key, chain: chain) } catch {
            throw fail("cannot sign the declaration: \(error)")
        }
        guard signed.count + 64 <= UbiquityLimits.maximumValueBytes else {
            throw fail("the declaration is \(signed.count) bytes signed; a group's declaration holds at most \(UbiquityLimits.maximumValueBytes - 64); nothing was published")
        }
        try await checkSigner(signed, what: "declaration", organization: try await organization(transport), signing: signing, nothing: "nothing was published")
        let answer: UbiquityCommitResponse
        do {
            answer = try await transport.commit(store: UbiquityFleetNames.policyStore(group: group), UbiquityCommitRequest(changes: [
                UbiquityWireChange(key: UbiquityFleetNames.declarationKey, base: base, value: UbiquityWireValue.encode(.data(Data(signed)))),
                // Unsigned, beside it: the revision, for the server's metrics (machines never trust it).
                UbiquityWireChange(key: UbiquityFleetNames.revisionKey, base: summaryBase, value: UbiquityWireValue.encode(PropertyList(revision))),
            ]))
        } catch {
            throw fail("nothing was published: \(error)")
        }
        guard !answer.results.isEmpty, answer.results.allSatisfy({ $0.status == .applied }) else {
            throw fail("nothing was published: \(answer.refusal ?? "another administrator published group \(group) meanwhile; run the command again")")
        }
        return revision
    }

    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "publish",
            abstract: "Publish a group's profiles: they replace the group's declaration, at its next revision.")

        @Option(help: "The group of machines.")
        var group: String

        @Argument(help: "The profiles (.mobileconfig; System profiles).")
        var files: [String]

        @OptionGroup var signing: Signing

        func validate() throws {
            guard UbiquityFleetNames.isValidName(group) else { throw ValidationError("the group must be 1 to 64 letters, digits, '.', '_' or '-'") }
            if files.isEmpty { throw ValidationError("name at least one profile (to withdraw them all: ubiquity policy remove)") }
        }

        func run() async throws {
            var profiles: [[UInt8]] = []
            var identifiers: [String] = []
            for path in files {
                // As `profiles validate` reads and refuses it: the same code, the same words.
                let bytes: [UInt8]
                do { bytes = try FileIO.read(path, limit: ConfigurationProfile.maximumSize) } catch { throw fail("\(error); nothing was published") }
                let profile: ConfigurationProfile
                do { profile = try ConfigurationProfile(bytes: bytes) } catch { throw fail("\(path): \(error); nothing was published") }
                guard profile.scope == .system else {
                    throw fail("\(path): \(profile.identifier) is a User profile; a fleet installs System profiles; nothing was published")
                }
                if !profile.preferences.notUnderstood.isEmpty {
                    throw fail("\(path): \(profile.preferences.notUnderstood.joined(separator: "; ")); nothing was published")
                }
                if profile.preferences.isEmpty { throw fail("\(path): the profile sets no preferences on this system; nothing was published") }
                if identifiers.contains(profile.identifier) { throw fail("\(path): \(profile.identifier) is named twice; nothing was published") }
                identifiers.append(profile.identifier)
                profiles.append(bytes)
            }
            let revision = try await Policy.publish(profiles, group: group, signing: signing)
            StandardStream.output.write("Published revision \(revision) of group \(group): \(TerminalText.safe(identifiers.joined(separator: ", ")))\n")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Withdraw a group's profiles: a signed, empty declaration at the next revision (the machines remove what the group installed).")

        @Option(help: "The group of machines.")
        var group: String

        @OptionGroup var signing: Signing

        func run() async throws {
            let revision = try await Policy.publish([], group: group, signing: signing)
            StandardStream.output.write("Published revision \(revision) of group \(group): no profiles\n")
        }
    }

    struct HandOver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hand-over",
            abstract: "Hand the organisation's certificate over to a new one: signed under the current one, every machine pins the new one.",
            discussion: """
                Sign with a key under the certificate machines pin now (--signing-cert, --signing-key). \
                From then on declarations must be signed under the new certificate, and machines \
                that enrol get it. Keep the old key until every machine has reported the new \
                certificate (ubiquity org machines --output json: "pinned").
                """
        )

        @Option(name: .customLong("new-cert"), help: "The organisation's next certificate (PEM or DER).")
        var newCertificate: String

        @OptionGroup var signing: Signing

        func run() async throws {
            let der: [UInt8]
            do { der = try DeclarationSignature.der(of: try DeclarationSignature.certificate(try FileIO.read(newCertificate, limit: 1 << 20))) } catch {
                throw fail("\(newCertificate): not a certificate: \(error)")
            }
            let (certificate, key, chain) = try signing.load()
            let (transport, account) = try Policy.transport()
            let current = try await Policy.organization(transport)
            func entry(_ key: String) -> UbiquityWireEntry? { current.first { $0.key == key } }
            var sequence: Int64 = 1
            if let text = entry(UbiquityFleetNames.handoverKey)?.value, case .data(let signed)? = UbiquityWireValue.decode(text)?.value,
               let content = try? SignedProfile.content(of: Array(signed)), let previous = try? Handover(bytes: content) {
                sequence = previous.sequence + 1
            }
            let handover = Handover(organization: account.name, sequence: sequence, issued: Date(), certificate: der)
            let signed: [UInt8]
            do { signed = try DeclarationSignature.sign(handover.content(), certificate: certificate, key: key, chain: chain) } catch {
                throw fail("cannot sign the hand-over: \(error)")
            }
            try await Policy.checkSigner(signed, what: "hand-over", organization: current, signing: signing, nothing: "nothing was handed over")
            let answer: UbiquityCommitResponse
            do {
                answer = try await transport.commit(store: UbiquityFleetNames.organizationStore, UbiquityCommitRequest(changes: [
                    UbiquityWireChange(key: UbiquityFleetNames.handoverKey, base: entry(UbiquityFleetNames.handoverKey)?.revision ?? 0,
                                       value: UbiquityWireValue.encode(.data(Data(signed)))),
                    UbiquityWireChange(key: UbiquityFleetNames.certificateKey, base: entry(UbiquityFleetNames.certificateKey)?.revision ?? 0,
                                       value: UbiquityWireValue.encode(.data(Data(der)))),
                ]))
            } catch {
                throw fail("nothing was handed over: \(error)")
            }
            guard answer.results.allSatisfy({ $0.status == .applied }) else {
                throw fail("nothing was handed over: \(answer.refusal ?? "the organisation's certificate changed meanwhile; run the command again")")
            }
            StandardStream.output.write("Handed over to \(DeclarationSignature.fingerprint(of: der)) (hand-over \(sequence)); machines pin it as they receive it\n")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List groups' declarations: revision, when issued, profiles.")

        @Argument(help: "The groups.")
        var groups: [String]

        func run() async throws {
            let (transport, _) = try Policy.transport()
            var text = "GROUP\tREVISION\tISSUED\tPROFILES\n"
            for group in groups {
                let (_, _, declaration) = try await Policy.current(transport, group: group)
                guard let declaration else { text += "\(group)\t-\t-\t-\n"; continue }
                let ids = declaration.profiles.map { (try? ConfigurationProfile(bytes: $0).identifier) ?? "(unreadable)" }
                text += "\(group)\t\(declaration.revision)\t\(PropertyList.descriptionString(for: declaration.issued))\t\(TerminalText.safe(ids.joined(separator: ",")))\n"
            }
            StandardStream.output.write(text)
        }
    }
}
