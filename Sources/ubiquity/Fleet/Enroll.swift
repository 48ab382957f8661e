import ArgumentParser
import OpenDefaults
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PlatformIO
import UbiquityFleet
import X509
import Foundation

/// `ubiquity enroll URL [SECRET] [--group G…]`: this machine joins an organisation (as root).
struct Enroll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Enrol this machine in an organisation: its own credential is kept (0600, root's) and the organisation's certificate pinned.",
        discussion: """
            Run as root. The enrolment secret is read from standard input (or --secret-file); \
            the machine is named by its machine id (/etc/machine-id) and host name. Enrolling \
            again replaces the machine's credential and groups; `ubiquity agent` then applies \
            the groups' declarations.
            """
    )

    @Argument(help: "The server's URL, e.g. https://policy.example.com.")
    var server: String

    @Argument(help: ArgumentHelp(
        "The enrolment secret; without it (or with -) it is read from standard input.",
        discussion: "A secret on the command line can be read by every local user (/proc/PID/cmdline): prefer standard input or --secret-file."))
    var secret: String?

    @Option(name: .customLong("secret-file"), help: "Read the enrolment secret from this file (its first line) instead of standard input.")
    var secretFile: String?

    @Option(name: .customLong("group"), help: "A group whose declarations this machine follows (repeat for several).")
    var groups: [String] = []

    @Option(name: .customLong("ca-file"), help: "Trust the certificate authorities in this PEM file for the server.")
    var caFile: String?

    @Option(name: .customLong("expect-certificate"), help: "The SHA-256 of the organisation's certificate, as `ubiquity org create` printed it: enrolment is refused if the server gives another.")
    var expectCertificate: String?

    @Flag(help: "Allow plain http:// to a server beyond loopback.")
    var insecure = false

    func validate() throws {
        guard server.hasPrefix("http://") || server.hasPrefix("https://") else {
            throw ValidationError("the server's URL must begin with http:// or https://")
        }
        if server.hasPrefix("http://"), !insecure, !HostNames.isLoopback(Login.host(of: server)) {
            throw ValidationError("http://\(TerminalText.safe(Login.host(of: server))) is not loopback: the credential would cross the network in the clear; use https:// (or --insecure)")
        }
        if secret != nil, secret != "-", secretFile != nil { throw ValidationError("give the secret once: as an argument or with --secret-file") }
        if groups.isEmpty { throw ValidationError("name at least one group: --group NAME") }
        if let bad = groups.first(where: { !UbiquityFleetNames.isValidName($0) }) {
            throw ValidationError("the group \"\(TerminalText.safe(bad))\" must be 1 to 64 letters, digits, '.', '_' or '-'")
        }
    }

    func run() async throws {
        guard Environment.effectiveUserID == 0 else {
            throw fail("enrolling needs root: the agent installs the organisation's profiles, which the library trusts only in files root owns")
        }
        let secret = try enrolmentSecret()
        let machine: String
        let files = AgentFiles()
        do { machine = try files.machineID() } catch { throw fail("\(error)") }
        let host = ProcessInfo.processInfo.hostName
        let caPath = caFile.map { $0.hasPrefix("/") ? $0 : (Environment["PWD"] ?? ".") + "/" + $0 }
        let probe = UbiquityAccount(server: server, token: secret, name: "", identifier: "", certificateAuthorities: caPath)
        let answer: UbiquityEnrollResponse
        do {
            answer = try await HTTPUbiquityTransport(account: probe).enroll(UbiquityEnrollRequest(machine: machine, host: host, groups: groups))
        } catch {
            throw fail("cannot enrol at \(server): \(error.description)")
        }
        guard let der = Data(base64Encoded: answer.certificate).map(Array.init),
              let certificate = try? DeclarationSignature.certificate(der) else {
            throw fail("the server's answer holds no readable certificate; nothing was kept")
        }
        let fingerprint = DeclarationSignature.fingerprint(of: der)
        if let expected = expectCertificate?.lowercased().replacingOccurrences(of: ":", with: ""), expected != fingerprint {
            throw fail("the server gave a certificate with SHA-256 \(fingerprint), not the expected \(expected); nothing was kept")
        }
        let credential = AgentCredential(server: server, token: answer.token, organization: answer.organization, machine: machine,
                                         host: host, groups: groups, certificate: der, certificateAuthorities: caPath)
        do { try credential.save(to: files) } catch { throw fail("\(error)") }
        StandardStream.output.write("""
            Enrolled \(machine) (\(TerminalText.safe(host))) in \(TerminalText.safe(answer.organization)), groups \(groups.joined(separator: ", ")).
            Pinned the organisation's certificate \(TerminalText.safe(certificate.subject.description)) (SHA-256 \(fingerprint)).
            The credential is in \(files.credentialPath); `ubiquity agent` applies the groups' declarations.

            """)
    }

    func enrolmentSecret() throws -> String {
        try readSecret(argument: secret, file: secretFile, what: "enrolment secret", fileOption: "--secret-file")
    }
}
