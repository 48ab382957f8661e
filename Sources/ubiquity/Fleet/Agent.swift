import AgentExecutor
import ArgumentParser
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PlatformIO
import PropertyList
import SharedTables
import UbiquityFleet
import Foundation

/// `ubiquity agent`: follows the organisation's declarations for this machine's groups, applies
/// them, and reports what it applied (proposal 0018). Runs as root, under systemd `Type=notify`.
struct Agent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Apply the organisation's declarations for this machine's groups as they are published, and report what was applied.",
        discussion: """
            Needs an enrolment (ubiquity enroll) and root. Each declaration's signature is checked \
            against the certificate pinned at enrolment; a declaration altered by the server, an \
            older revision, or one moved from another group is refused and reported, and nothing \
            of it is applied. Profiles are installed and removed as `profiles install` and \
            `profiles remove` do, a declaration's profiles in one step. Profiles installed by \
            hand are never touched. While the server is away the last declaration stays applied.
            """
    )

    @Flag(help: "Apply what the server holds now, report, and exit (instead of following).")
    var once = false

    @Option(name: .customLong("root"), help: ArgumentHelp(
        "Manage the machine whose file tree is at <path> (a container's root, enrolled with OPENDEFAULTS_SYSTEM_ROOT=<path> ubiquity enroll) instead of this one; repeat for several, each with its own credential and connection, all in this process.",
        valueName: "path"))
    var roots: [String] = []

    func validate() throws {
        for root in roots where !root.hasPrefix("/") {
            throw ValidationError("--root \(TerminalText.safe(root)): give the machine's tree as an absolute path")
        }
        let distinct = Set(roots.map { AgentFiles(root: $0).root })
        if distinct.count != roots.count { throw ValidationError("--root names one machine twice") }
    }

    func run() async throws {
        guard Environment.effectiveUserID == 0 else {
            throw fail("the agent needs root: it installs profiles, which the library trusts only in files root owns")
        }
        // Swift's jobs run on the agent's own executor (AgentExecutor.c, put in place as the
        // process loaded), which sleeps while the agent waits: libdispatch's wakes every second.
        let executor = opendefaults_agent_executor_installed() ? "own executor" : "libdispatch"
        let machines = roots.isEmpty ? [AgentFiles()] : roots.map { AgentFiles(root: $0) }
        // The machines of one process check a declaration they all receive once (VerifiedSignatures);
        // one machine keeps no proofs.
        let proofs = machines.count > 1 ? VerifiedSignatures() : nil
        var runners: [AgentRunner] = []
        for files in machines {
            runners.append(try Self.runner(for: files, named: roots.isEmpty ? nil : files.root, proofs: proofs))
        }
        if once {
            for runner in runners { try await runner.applyOnce() }
            return
        }
        if let only = runners.first, runners.count == 1 {
            let credential = only.agent.credential
            agentSay("following \(credential.groups.count == 1 ? "group" : "groups") \(credential.groups.joined(separator: ", ")) of \(credential.organization) at \(credential.server)")
        } else {
            agentSay("following the groups of \(runners.count) machines")
        }
        // Each machine's first report, all at once (each machine has its own connection).
        await withTaskGroup(of: Void.self) { reports in
            for runner in runners { reports.addTask { _ = await runner.report() } }
        }
        ServiceManager.notify("READY=1\nSTATUS=following \(runners.count == 1 ? runners[0].agent.credential.groups.joined(separator: ", ") : "\(runners.count) machines") (\(executor))")
        await withTaskGroup(of: Void.self) { tasks in
            for runner in runners {
                tasks.addTask { await Self.follow(runner, proofs: proofs) }
            }
        }
    }

    /// Follows a machine's groups for as long as the process runs. When the machine is enrolled
    /// again meanwhile (`ubiquity enroll`, say with other groups: its old credential is then
    /// refused), the agent takes the new credential as it would at its start: it leaves the
    /// groups the machine left, removing what they installed, reports, and follows the new ones.
    static func follow(_ first: AgentRunner, proofs: VerifiedSignatures?) async {
        var runner = first
        while await runner.follow() {
            do {
                runner = try Self.runner(for: runner.agent.files, named: runner.name, proofs: proofs)
            } catch {
                // Its words are said (the new credential cannot be read or used): try again later.
                await runner.transport.pause(for: .seconds(30))
                continue
            }
            let credential = runner.agent.credential
            runner.say("enrolled again: following \(credential.groups.count == 1 ? "group" : "groups") \(credential.groups.joined(separator: ", "))")
            _ = await runner.report()
        }
    }

    /// The runner of the machine whose files are `files`: its credential, its agent (having left
    /// the groups it no longer follows) and its own connection to the server.
    static func runner(for files: AgentFiles, named name: String?, proofs: VerifiedSignatures?) throws -> AgentRunner {
        let credential: AgentCredential
        let agent: FleetAgent
        do {
            guard let c = try AgentCredential.load(from: files) else {
                throw fail("\(AgentRunner.prefix(for: name))this machine is not enrolled (\(files.credentialPath) does not exist): run `ubiquity enroll URL --group NAME` first")
            }
            credential = c
            agent = try FleetAgent(credential: c, files: files, proofs: proofs)
            _ = try agent.leaveOtherGroups()
        } catch let error as FleetError {
            throw fail("\(AgentRunner.prefix(for: name))\(error)")
        }
        let account = UbiquityAccount(server: credential.server, token: credential.token, name: credential.organization,
                                      identifier: credential.machine, certificateAuthorities: credential.certificateAuthorities)
        // Its reports are rare: their connection closes 2 s after each, leaving the server one
        // connection, its event stream, for each idle machine (one per 16 stores it follows).
        let streams = AgentRunner.streams(groups: credential.groups).count
        // Its streams last 150 s: an idle machine wakes twice for each (its renewal, and 5 s later
        // the connections' timers), 0.8 times a minute (proposal 0020).
        let transport = HTTPUbiquityTransport(account: account, maximumConnections: streams + 1, idleTimeout: .seconds(2), streamSeconds: 150)
        return AgentRunner(agent: agent, transport: transport, name: name)
    }
}

/// Feeds the agent from the server's event streams, one change at a time, and sends reports.
actor AgentRunner {
    nonisolated let agent: FleetAgent
    nonisolated let transport: HTTPUbiquityTransport
    /// The credential's token as the runner started (a machine enrolled again gets another).
    nonisolated let token: String
    /// The machine's root when the process manages several (its messages name it), else nil.
    nonisolated let name: String?
    /// The revision of the last report the server holds (the base of the next one).
    var reportBase: Int64 = 0
    var reportDue = false

    init(agent: FleetAgent, transport: HTTPUbiquityTransport, name: String?) {
        self.agent = agent
        self.transport = transport
        self.token = agent.credential.token
        self.name = name
    }

    /// `--once`: applies what the server holds now for the organisation and each group, then reports.
    func applyOnce() async throws {
        if let answer = try? await transport.changes(store: UbiquityFleetNames.organizationStore, after: 0, wait: nil) {
            await receiveOrganization(answer)
        }
        for group in agent.credential.groups {
            let answer: UbiquityChangesResponse
            do { answer = try await transport.changes(store: UbiquityFleetNames.policyStore(group: group), after: 0, wait: nil) } catch {
                throw fail("\(prefix)cannot read group \(group)'s declaration: \(error)")
            }
            await receive(group: group, answer)
        }
        guard await report() else { throw fail("\(prefix)the status report could not be sent") }
    }

    /// What a machine's messages start with: its root, when the process manages several.
    static func prefix(for name: String?) -> String { name.map { $0 + ": " } ?? "" }
    nonisolated var prefix: String { Self.prefix(for: name) }

    nonisolated func say(_ line: String) { agentSay(prefix + line) }
    nonisolated func complain(_ line: String) { agentComplain(prefix + line) }

    /// Follows the organisation's store and each group's until the process ends, on one event
    /// stream (`GET /v1/events`), again from the stores' cursors after each end (the stream
    /// lasts 150 s) or failure (backing off to 1 s while the server is away). A report the
    /// server did not take is sent again with the next answer, the stream's first ones included.
    /// A machine in more than 15 groups has a stream for each 16 stores. Returns true when the
    /// machine was enrolled again (``enrolledAgain``): this runner's credential is spent.
    nonisolated func follow() async -> Bool {
        // Read once, before anything is received: a hand-over then changes the credential.
        let parts = Self.streams(groups: agent.credential.groups)
        return await withTaskGroup(of: Bool.self) { streams in
            for part in parts { streams.addTask { await self.follow(part) } }
            for await replaced in streams where replaced {
                streams.cancelAll()
                return true
            }
            return false
        }
    }

    /// Whether the machine's credential file now holds another token than the one this runner
    /// started with: `ubiquity enroll` ran again.
    nonisolated var enrolledAgain: Bool {
        guard let current = try? AgentCredential.load(from: agent.files) else { return false }
        return current.token != token
    }

    /// The stores of a machine in `groups`, as its event streams follow them: the organisation's
    /// store first (a hand-over of its certificate comes before declarations signed under the new
    /// one), then each group's, at most `UbiquityLimits.maximumStreamStores` a stream.
    static func streams(groups: [String]) -> [[(store: String, group: String?)]] {
        let stores: [(store: String, group: String?)] = [(UbiquityFleetNames.organizationStore, nil)]
            + groups.map { (UbiquityFleetNames.policyStore(group: $0), $0) }
        return stores.chunked(by: UbiquityLimits.maximumStreamStores).map(Array.init)
    }

    /// Follows `stores` (each a group's, or the organisation's when the group is nil) on one
    /// stream; returns true when the server refused the credential because the machine was
    /// enrolled again, false when cancelled.
    nonisolated func follow(_ stores: [(store: String, group: String?)]) async -> Bool {
        var cursors: [(store: String, after: Int64)] = stores.map { ($0.store, 0) }
        var backoff: Duration = .milliseconds(100)
        var saidAway = false
        /// Whether the server refused the credential at the last attempt.
        var refused = false
        while !Task.isCancelled {
            do {
                for try await (store, answer) in transport.events(stores: cursors) {
                    guard let i = cursors.firstIndex(where: { $0.store == store }) else {
                        throw UbiquityError.unreachable("the server sent changes of \(store), which this machine does not follow")
                    }
                    cursors[i].after = answer.revision
                    refused = false
                    if saidAway { say("the server is back"); saidAway = false }
                    backoff = .milliseconds(100)
                    if let group = stores[i].group { await receive(group: group, answer) } else { await receiveOrganization(answer) }
                    if await reportDue { _ = await report() }
                }
            } catch {
                if case .unauthorized(let why) = error as? UbiquityError {
                    if enrolledAgain { return true }
                    if !refused {
                        complain("the server refuses this machine's credential (\(why)): was it removed from the organisation? Enrol it again.")
                        // `ubiquity enroll` replaces the credential on the server before it writes
                        // the file: the file is looked at each second for ten seconds first.
                        refused = true
                        for _ in 0..<10 where !Task.isCancelled {
                            await transport.pause(for: .seconds(1))
                            if enrolledAgain { return true }
                        }
                    }
                    // Then once a minute, as an idle agent wakes: tried again, the file looked at.
                    await transport.pause(for: .seconds(60))
                    if enrolledAgain { return true }
                    continue
                }
                if !saidAway { complain("lost the server (\(error)); the applied declarations stay; retrying"); saidAway = true }
                await transport.pause(for: backoff)
                backoff = min(backoff * 2, .seconds(1))
            }
        }
        return false
    }

    /// The signed bytes `answer` carries for `key`: nil when the answer does not touch the key,
    /// `.some(nil)` when the key was removed, and empty bytes for a value that is not data
    /// (refused as not signed).
    static func signedValue(of key: String, in answer: UbiquityChangesResponse) -> [UInt8]?? {
        guard let entry = answer.entries.last(where: { $0.key == key }) else { return nil }
        guard let text = entry.value else { return .some(nil) }
        if case .data(let bytes)? = UbiquityWireValue.decode(text)?.value { return Array(bytes) }
        return []
    }

    /// A changes answer of the organisation's store: a hand-over of its certificate, if there is a new one.
    func receiveOrganization(_ answer: UbiquityChangesResponse) async {
        guard let signed = Self.signedValue(of: UbiquityFleetNames.handoverKey, in: answer) else { return }
        if await agent.receive(handover: signed) {
            if let refusal = agent.state.handoverRefusal { complain("the certificate's hand-over was refused: \(refusal)") }
            else { say("the organisation's certificate was handed over (hand-over \(agent.credential.handoverSequence)); declarations are checked against the new one") }
            reportDue = true
            _ = await report()
        }
    }

    /// A changes answer of group `group`'s store: its declaration, if it changed.
    func receive(group: String, _ answer: UbiquityChangesResponse) async {
        guard let signed = Self.signedValue(of: UbiquityFleetNames.declarationKey, in: answer) else { return }
        if await agent.receive(group: group, signed: signed) {
            if let g = agent.state.groups[group] {
                if let refusal = g.refusal { complain("group \(group): refused: \(refusal)") }
                else { say("group \(group): revision \(g.revision) applied (\(g.outcomes.values.filter { $0 == "installed" }.count) of \(g.outcomes.count) profiles installed)") }
            }
            reportDue = true
            _ = await report()
        }
    }

    /// Sends the status report; whether the server took it.
    func report() async -> Bool {
        let credential = agent.credential
        let value = agent.report()
        let store = UbiquityFleetNames.statusStore(machine: credential.machine)
        for _ in 0..<4 {
            do {
                let answer = try await transport.commit(store: store, UbiquityCommitRequest(changes: [
                    UbiquityWireChange(key: UbiquityFleetNames.reportKey, base: reportBase, value: UbiquityWireValue.encode(value)),
                ]))
                guard let result = answer.results.first else { return false }
                reportBase = result.entry.revision
                if result.status == .applied { reportDue = false; return true }
                if result.status == .refused { complain("the server refused the status report: \(answer.refusal ?? "no reason")"); return false }
            } catch {
                reportDue = true
                return false
            }
        }
        return false
    }
}

// A line carries what declarations, certificates and the server said: its control characters are escaped.
func agentSay(_ line: String) { StandardStream.output.write("ubiquity agent: \(TerminalText.safe(line))\n") }
func agentComplain(_ line: String) { StandardStream.error.write("ubiquity agent: \(TerminalText.safe(line))\n") }
