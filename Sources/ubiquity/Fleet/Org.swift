import ArgumentParser
import PlatformIO
import PropertyList
import UbiquityBackend
import UbiquityFleet
import UbiquityProtocol
import UbiquityServer
import Foundation

/// `ubiquity org …`: organisations of machines (proposal 0018), on the database directly, as
/// `ubiquity account` manages accounts.
struct Org: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "org",
        abstract: "Manage organisations of machines: create one, list its machines and what they applied, remove a machine.",
        discussion: """
            An organisation is an account of the server. Its administrator's token publishes \
            declarations (ubiquity login, then ubiquity policy publish); its enrolment secret \
            enrols machines (ubiquity enroll); each machine gets a credential of its own.
            """,
        subcommands: [Create.self, Machines.self, Audit.self, RemoveMachine.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create an organisation; prints its administrator's token and its enrolment secret (each shown only now: the server keeps their hashes).")

        @Argument(help: "The organisation's name (1 to 64 letters, digits, '.', '-', '_', '@').")
        var name: String

        @Option(name: .customLong("signing-cert"), help: "The organisation's certificate (PEM or DER): every declaration must be signed under it (by its key, or a key it certifies). Machines pin it at enrolment.")
        var signingCert: String

        @Flag(help: "Make the SQLite database when there is none.")
        var create = false

        @OptionGroup var database: DatabaseOptions

        func validate() throws { try Account.checkName(name, what: "organisation name") }

        func run() async throws {
            let der: [UInt8]
            do {
                let certificate = try DeclarationSignature.certificate(try FileIO.read(signingCert, limit: 1 << 20))
                der = try DeclarationSignature.der(of: certificate)
            } catch {
                throw fail("\(signingCert): not a certificate: \(error)")
            }
            let admin = UbiquityService.newToken(), enrolment = UbiquityService.newToken()
            try await Account.onDatabase(database, existing: !create) { backend in
                let info = try await backend.createAccount(name: name, tokenName: UbiquityFleetNames.administratorToken,
                                                           tokenHash: UbiquityService.hash(token: admin))
                try await backend.addToken(account: name, tokenName: UbiquityFleetNames.enrolmentToken,
                                           tokenHash: UbiquityService.hash(token: enrolment))
                let outcome = try await backend.commit(account: info.id, store: UbiquityFleetNames.organizationStore, changes: [
                    CheckedChange(key: UbiquityFleetNames.certificateKey, base: 0, bytes: PropertyList.data(Data(der)).encoded(as: .binary)),
                ])
                if let refusal = outcome.refusal { throw BackendError(status: 422, refusal.message) }
                StandardStream.output.write("""
                    Organisation \(info.name) created; machines will pin its certificate \
                    (SHA-256 \(DeclarationSignature.fingerprint(of: der))).
                    Administrator's token (ubiquity login URL, then ubiquity policy publish):
                    \(admin)
                    Enrolment secret (ubiquity enroll URL on each machine, the secret on standard input):
                    \(enrolment)

                    """)
            }
        }
    }

    /// What `machines` and `audit` both take: the organisation, the output format, the database.
    struct Listing: ParsableArguments {
        @Argument(help: "The organisation's name.")
        var name: String

        @Option(help: "text (default) or json.")
        var output: OutputFormat = .text

        @OptionGroup var database: DatabaseOptions

        /// Prints the organisation's machines as JSON, or as `text` makes them.
        func show(_ text: @escaping ([FleetRecords.Machine]) -> String) async throws {
            try await Account.onDatabase(database) { backend in
                let rows = try await FleetRecords.machines(of: name, backend: backend)
                StandardStream.output.write(output == .json ? try FleetRecords.json(rows) + "\n" : text(rows))
            }
        }
    }

    struct Machines: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "machines",
            abstract: "List an organisation's machines: host, groups, last seen, the revision each group applied, failures.")

        @OptionGroup var listing: Listing

        func run() async throws {
            try await listing.show { rows in
                var text = "MACHINE\tHOST\tGROUPS\tLAST SEEN\tAPPLIED\tFAILURES\n"
                for m in rows {
                    let applied = m.groups.map { "\($0.name)@\($0.revision.map(String.init) ?? "-")" }.joined(separator: ",")
                    let failures = m.groups.reduce(0) { $0 + $1.failures.count + ($1.refused == nil ? 0 : 1) }
                    text += "\(m.machine)\t\(TerminalText.safe(m.host))\t\(m.groups.map(\.name).joined(separator: ","))\t"
                    text += "\(m.lastSeen.map { Account.time(Int64($0.timeIntervalSince1970)) } ?? "never")\t\(applied)\t\(failures)\n"
                }
                return text
            }
        }
    }

    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audit",
            abstract: "Per machine and group: the revision applied and when, each profile that failed and each declaration refused, with the reason.")

        @OptionGroup var listing: Listing

        func run() async throws {
            try await listing.show { rows in
                var text = "MACHINE\tGROUP\tREVISION\tAPPLIED\tOUTCOME\n"
                for m in rows {
                    for g in m.groups {
                        let revision = g.revision.map(String.init) ?? "-"
                        let applied = g.applied.map { Account.time(Int64($0.timeIntervalSince1970)) } ?? "never"
                        var outcomes = g.failures.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                        if let refused = g.refused { outcomes.append("refused (\(g.refusedKind ?? "?")): \(refused)") }
                        if outcomes.isEmpty { outcomes = [g.revision == nil ? "not reported" : "ok"] }
                        for outcome in outcomes {
                            text += "\(m.machine)\t\(g.name)\t\(revision)\t\(applied)\t\(TerminalText.safe(outcome))\n"
                        }
                    }
                }
                return text
            }
        }
    }

    struct RemoveMachine: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-machine",
            abstract: "Remove a machine: its credential is refused at once by every server; its entry and report are deleted.")

        @Argument(help: "The organisation's name.")
        var name: String

        @Argument(help: "The machine's id (as `ubiquity org machines` lists it).")
        var machine: String

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await Account.onDatabase(database) { backend in
                let revoked = try await backend.revokeTokens(account: name, tokenName: UbiquityFleetNames.machineToken(machine))
                guard let account = try await backend.accounts().first(where: { $0.name == name }) else { return }
                for store in [UbiquityFleetNames.machinesStore, UbiquityFleetNames.statusStore(machine: machine)] {
                    let current = try await backend.changes(account: account.id, store: store, after: 0)
                    let changes = current.entries.filter { $0.value != nil && (store != UbiquityFleetNames.machinesStore || $0.key == machine) }
                        .map { CheckedChange(key: $0.key, base: $0.revision, bytes: nil) }
                    if !changes.isEmpty { _ = try await backend.commit(account: account.id, store: store, changes: changes) }
                }
                StandardStream.output.write("Machine \(TerminalText.safe(machine)) removed from \(name) (\(revoked) credential revoked)\n")
            }
        }
    }
}

/// `--output text|json`.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
