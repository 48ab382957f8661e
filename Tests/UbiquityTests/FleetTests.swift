import Foundation
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing
import TestSupport
import UbiquityProtocol

/// An organisation's certificates, made by openssl as an administrator would: the organisation's
/// CA (what machines pin), a signing certificate it issued, and a stranger's CA and signer.
struct FleetKeys {
    let folder: TemporaryFolder
    var ca: String { folder.path + "/ca.pem" }
    var signer: String { folder.path + "/signer.pem" }
    var signerKey: String { folder.path + "/signer.key" }
    var strangerSigner: String { folder.path + "/stranger-signer.pem" }
    var strangerKey: String { folder.path + "/stranger-signer.key" }

    init() throws {
        folder = try TemporaryFolder("fleet-keys")
        let dir = folder.path
        func openssl(_ args: [String]) throws {
            let r = try runProcess("/usr/bin/openssl", args)
            try #require(r.status == 0, "openssl \(args.joined(separator: " ")): \(r.stderr)")
        }
        try Data("basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign\n".utf8).write(to: URL(fileURLWithPath: dir + "/ca.ext"))
        try Data("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=codeSigning\n".utf8)
            .write(to: URL(fileURLWithPath: dir + "/signer.ext"))
        for who in ["", "stranger-"] {
            try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30",
                         "-subj", "/O=\(who.isEmpty ? "Acme" : "Stranger")/CN=\(who)fleet CA", "-addext", "basicConstraints=critical,CA:TRUE",
                         "-addext", "keyUsage=critical,keyCertSign", "-keyout", "\(dir)/\(who)ca.key", "-out", "\(dir)/\(who)ca.pem"])
            // The stranger's name carries an escape sequence: it must reach no terminal as one.
            let name = who.isEmpty ? "administrator" : "\u{1B}[31mstranger-administrator"
            try openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/O=Acme/CN=\(name)",
                         "-keyout", "\(dir)/\(who)signer.key", "-out", "\(dir)/\(who)signer.csr"])
            try openssl(["x509", "-req", "-in", "\(dir)/\(who)signer.csr", "-CA", "\(dir)/\(who)ca.pem", "-CAkey", "\(dir)/\(who)ca.key",
                         "-CAcreateserial", "-days", "30", "-extfile", "\(dir)/signer.ext", "-out", "\(dir)/\(who)signer.pem"])
        }
    }
}

/// A machine of a fleet: its own system root (`OPENDEFAULTS_SYSTEM_ROOT`, with its own
/// `/etc/machine-id`), where `ubiquity enroll` keeps its credential and the agent installs profiles.
final class FleetMachine: @unchecked Sendable {
    let root: String
    let id: String
    let home: TemporaryFolder
    var agent: RunningProcess?
    var notify: NotifySocket?
    var agentLog: String { home.path + "/agent.log" }

    init(_ name: String) throws {
        home = try TemporaryFolder("machine-\(name)")
        root = try ScratchFolders.make("fleet-root-\(name)").path
        // Root-owned and closed to others all the way down, as the library's trust checks require.
        try FileManager.default.createDirectory(atPath: root + "/etc", withIntermediateDirectories: true)
        for path in [root, root + "/etc"] { chmod(path, 0o755) }
        id = (0..<32).map { _ in String("0123456789abcdef".randomElement()!) }.joined()
        try Data((id + "\n").utf8).write(to: URL(fileURLWithPath: root + "/etc/machine-id"))
    }

    deinit {
        stopAgent()
        try? FileManager.default.removeItem(atPath: root)
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home.path
        env["XDG_CONFIG_HOME"] = home.path + "/config"
        env["OPENDEFAULTS_SYSTEM_ROOT"] = root
        return env
    }

    func run(_ args: [String], input: String? = nil) throws -> Outcome { try ubiquity(args, environment: environment, input: input) }

    /// `ubiquity agent`, running; returns once it said READY=1.
    func startAgent() throws {
        let notify = try NotifySocket(in: home.path)
        agent = try startProcess(products.appendingPathComponent("ubiquity").path, ["agent"],
                                 environment: environment.merging(notify.environment) { $1 },
                                 output: .file(URL(fileURLWithPath: agentLog)), errors: .file(URL(fileURLWithPath: agentLog + ".err")))
        self.notify = notify
        guard notify.wait(timeout: .seconds(30), { $0.hasPrefix("READY=1") }) else {
            throw SyncServer.ServerFailed(message: "ubiquity agent did not say READY=1: \(agentErrors)")
        }
    }

    /// `ubiquity agent --root` for this machine and `others`, in one process of this machine's,
    /// whose own system root is `/` (so nothing may land there); returns once it said READY=1.
    func startAgent(managing others: [FleetMachine]) throws {
        let notify = try NotifySocket(in: home.path)
        var env = environment.merging(notify.environment) { $1 }
        env["OPENDEFAULTS_SYSTEM_ROOT"] = nil
        agent = try startProcess(products.appendingPathComponent("ubiquity").path, ["agent"] + ([self] + others).flatMap { ["--root", $0.root] },
                                 environment: env,
                                 output: .file(URL(fileURLWithPath: agentLog)), errors: .file(URL(fileURLWithPath: agentLog + ".err")))
        self.notify = notify
        guard notify.wait(timeout: .seconds(30), { $0.hasPrefix("READY=1") }) else {
            throw SyncServer.ServerFailed(message: "ubiquity agent did not say READY=1: \(agentErrors)")
        }
    }

    var agentErrors: String { (try? String(contentsOfFile: agentLog + ".err", encoding: .utf8)) ?? "" }

    func stopAgent() {
        guard let agent else { return }
        kill(agent.processIdentifier, SIGKILL)
        agent.waitUntilExit()
        self.agent = nil
    }

    /// What `defaults read DOMAIN KEY` says on this machine (any user sees forced values).
    func read(_ domain: String, _ key: String) throws -> String? {
        let r = try runProcess(products.appendingPathComponent("defaults").path, ["read", domain, key], environment: environment)
        return r.status == 0 ? r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : nil
    }

    /// The machine's credential token (as the agent holds it).
    /// Whether `defaults read domain key` says the key does not exist (false when it failed otherwise).
    func lacks(_ domain: String, _ key: String) -> Bool {
        guard let r = try? runProcess(products.appendingPathComponent("defaults").path, ["read", domain, key], environment: environment) else { return false }
        return r.status == 1 && r.stderr.contains("does not exist")
    }

    var token: String? {
        guard let data = FileManager.default.contents(atPath: root + "/var/lib/opendefaults/agent/credential.plist"),
              case .dictionary(let d)? = try? PropertyList(decoding: data), case .string(let t)? = d["Token"] else { return nil }
        return t
    }
}

/// An organisation on a server, with its keys and its administrator logged in on a machine of
/// their own: what every fleet test starts from.
final class FleetScene: @unchecked Sendable {
    let keys: FleetKeys
    let server: SyncServer
    let admin: String
    let secret: String
    let office: Machine

    /// `publishVia`: the server the administrator logs in to (another instance, say); `server` by default.
    init(_ server: SyncServer, publishVia other: SyncServer? = nil) throws {
        keys = try FleetKeys()
        self.server = server
        (admin, secret) = try FleetTests.createOrganization(server, keys: keys)
        office = try Machine("admin")
        try office.login(other ?? server, token: admin)
    }

    /// `ubiquity enroll` of `machine` in `group`.
    func enroll(_ machine: FleetMachine, group: String = "desktops") throws {
        let r = try machine.run(["enroll", server.url, "--group", group], input: secret + "\n")
        try #require(r.status == 0, "enroll: \(r.stderr)")
    }

    /// `ubiquity policy publish` of `files` (signed by the organisation's signer unless `cert` and `key` say otherwise).
    /// `unchecked`: sent even when the signer does not chain to the organisation's certificate
    /// (`--skip-signer-check`), to see the machines refuse it.
    func publish(_ files: [String], group: String = "desktops", cert: String? = nil, key: String? = nil, unchecked: Bool = false) throws -> Outcome {
        try office.run(["policy", "publish", "--group", group, "--signing-cert", cert ?? keys.signer, "--signing-key", key ?? keys.signerKey]
                       + (unchecked ? ["--skip-signer-check"] : []) + files)
    }

    /// Publishes one profile that forces `com.example.fleet` `Mode` to `mode`; fails the test when refused.
    func publish(mode: String, group: String = "desktops", cert: String? = nil, key: String? = nil, unchecked: Bool = false) throws {
        let r = try publish([try profile("com.example.fleet.mode", ["Mode": .string(mode)])], group: group, cert: cert, key: key, unchecked: unchecked)
        try #require(r.status == 0, "publish: \(r.stderr)")
    }

    /// `ubiquity policy remove` of `group`.
    func withdraw(_ group: String = "desktops") throws {
        let r = try office.run(["policy", "remove", "--group", group, "--signing-cert", keys.signer, "--signing-key", keys.signerKey])
        try #require(r.status == 0, "remove: \(r.stderr)")
    }

    func profile(_ identifier: String, domain: String = "com.example.fleet", _ values: [LiteralString: PropertyList]) throws -> String {
        try FleetTests.profile(identifier, domain: domain, values, folder: keys.folder.path)
    }
}

/// Issue 41: a fleet managed from one place: an organisation, machines enrolled with their own
/// credentials, declarations signed by the administrator and applied by every machine's agent,
/// which reports what it applied; tampered, replayed and misdirected declarations refused.
@Suite("A fleet: organisations, enrolment, signed declarations, agents and reports", .offThePool, .exclusive(.servers),
       .serialized, .timeLimit(.minutes(10)), .requires(.root, .openssl, .curl))
struct FleetTests {
    static func profile(_ identifier: String, domain: String = "com.example.fleet", _ values: [LiteralString: PropertyList], folder: String) throws -> String {
        let p: [LiteralString: PropertyList] = [
            "PayloadType": "Configuration", "PayloadIdentifier": .string(identifier), "PayloadUUID": .string(UUID().uuidString),
            "PayloadVersion": 1, "PayloadDisplayName": .string(identifier), "PayloadScope": "System",
            "PayloadContent": [[
                "PayloadType": "com.apple.ManagedClient.preferences", "PayloadIdentifier": .string(identifier + ".prefs"),
                "PayloadUUID": .string(UUID().uuidString), "PayloadVersion": 1,
                "PayloadContent": .dictionary([LiteralString(domain): ["Forced": [["mcx_preference_settings": .dictionary(values)]]]]),
            ]],
        ]
        let path = folder + "/\(identifier)-\(UUID().uuidString.prefix(4)).mobileconfig"
        try PropertyList.dictionary(p).data(as: .xml).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The organisation on `server`: (administrator token, enrolment secret).
    static func createOrganization(_ server: SyncServer, keys: FleetKeys, name: String = "acme") throws -> (admin: String, secret: String) {
        let r = try ubiquity(["org", "create", name, "--signing-cert", keys.ca, "--create"] + server.databaseArguments, environment: server.environment)
        try #require(r.status == 0, "org create: \(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let admin = try #require(lines.firstIndex { $0.hasPrefix("Administrator's token") }.map { lines[$0 + 1] })
        let secret = try #require(lines.firstIndex { $0.hasPrefix("Enrolment secret") }.map { lines[$0 + 1] })
        return (admin, secret)
    }

    static func machines(_ server: SyncServer, _ org: String = "acme") throws -> [[String: Any]] {
        let r = try ubiquity(["org", "machines", org, "--output", "json"] + server.databaseArguments, environment: server.environment)
        #expect(r.status == 0, "org machines: \(r.stderr)")
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    /// The revision `machine` reports for `group`, or nil.
    static func reported(_ server: SyncServer, _ machine: FleetMachine, group: String) throws -> (revision: Int?, refusedKind: String?, failures: [String: String]) {
        guard let m = try machines(server).first(where: { $0["machine"] as? String == machine.id }),
              let groups = m["groups"] as? [[String: Any]], let g = groups.first(where: { $0["name"] as? String == group }) else { return (nil, nil, [:]) }
        return (g["revision"] as? Int, g["refusedKind"] as? String, g["failures"] as? [String: String] ?? [:])
    }

    /// `curl` a request with a bearer token; the status.
    static func status(_ server: SyncServer, token: String, _ method: String, _ path: String, body: String? = nil) throws -> Int {
        var args = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", method, "-H", "Authorization: Bearer \(token)"]
        if let body { args += ["-H", "Content-Type: application/json", "--data-binary", body] }
        return Int(try runProcess("/usr/bin/curl", args + [server.url + path]).stdout) ?? 0
    }

    @Test("a forced key reaches two enrolled machines, each reports it; the credentials are each machine's own, limited to its part",
          arguments: Backend.available)
    func fleet(backend: Backend) throws {
        let scene = try FleetScene(try SyncServer(backend))
        let (server, admin, secret) = (scene.server, scene.admin, scene.secret)
        let a = try FleetMachine("a"), b = try FleetMachine("b")
        // A wrong secret enrols nothing.
        let wrong = try a.run(["enroll", server.url, "--group", "desktops"], input: "not-the-secret\n")
        #expect(wrong.status != 0 && wrong.stderr.contains("not valid"), "\(wrong.stderr)")
        #expect(a.token == nil)
        for m in [a, b] {
            let r = try m.run(["enroll", server.url, "--group", "desktops"], input: secret + "\n")
            try #require(r.status == 0, "enroll: \(r.stderr)")
            #expect(r.stdout.contains("Enrolled \(m.id)"), "\(r.stdout)")
            let mode = try FileManager.default.attributesOfItem(atPath: m.root + "/var/lib/opendefaults/agent/credential.plist")[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
        // The administrator (logged in with the organisation's token) publishes a profile.
        for m in [a, b] { try m.startAgent() }
        let published = try scene.publish([try scene.profile("com.example.fleet.mode", ["Mode": "one"])])
        try #require(published.status == 0, "publish: \(published.stderr)")
        #expect(published.stdout == "Published revision 1 of group desktops: com.example.fleet.mode\n")
        for m in [a, b] {
            #expect(eventually(20) { (try? m.read("com.example.fleet", "Mode")) == "one" }, "\(m.agentErrors)")
            #expect(eventually(20) { (try? Self.reported(server, m, group: "desktops").revision) == 1 })
        }
        // Each credential does its own part only.
        let tokenA = try #require(a.token), tokenB = try #require(b.token)
        #expect(tokenA != tokenB)
        let report = #"{"changes":[{"key":"report","base":0,"value":null}]}"#
        #expect(try Self.status(server, token: tokenA, "POST", "/v1/stores/fleet.status.\(b.id)/commit", body: report) == 403, "a report for another machine")
        #expect(try Self.status(server, token: tokenA, "GET", "/v1/stores/fleet.machines/changes?after=0") == 403)
        #expect(try Self.status(server, token: tokenA, "POST", "/v1/stores/fleet.policy.desktops/commit", body: report) == 403)
        #expect(try Self.status(server, token: tokenA, "GET", "/v1/stores/fleet.policy.desktops/changes?after=0") == 200)
        // One stream of several stores is admitted only if each store is one the machine reads.
        #expect(try Self.status(server, token: tokenA, "GET", "/v1/events?stores=fleet.organization:0,fleet.machines:0&wait=0") == 403)
        #expect(try Self.status(server, token: tokenA, "GET", "/v1/events?stores=fleet.organization:0,fleet.status.\(b.id):0&wait=0") == 403)
        #expect(try Self.status(server, token: tokenA, "GET", "/v1/events?stores=fleet.organization:0,fleet.policy.desktops:0&wait=0") == 200)
        #expect(try Self.status(server, token: secret, "GET", "/v1/events?stores=fleet.policy.desktops:0&wait=0") == 403, "the enrolment secret only enrols")
        #expect(try Self.status(server, token: secret, "GET", "/v1/stores/fleet.policy.desktops/changes?after=0") == 403, "the enrolment secret only enrols")
        #expect(try Self.status(server, token: admin, "POST", "/v1/fleet/enroll", body: #"{"machine":"x","host":"h","groups":[]}"#) == 403)
        // A second revision replaces the first on both.
        try scene.publish(mode: "two")
        for m in [a, b] { #expect(eventually(20) { (try? m.read("com.example.fleet", "Mode")) == "two" }, "\(m.agentErrors)") }
        // A removed machine's credential is refused at once; the others go on.
        let removed = try ubiquity(["org", "remove-machine", "acme", b.id] + server.databaseArguments, environment: server.environment)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(eventually(5) { (try? Self.status(server, token: tokenB, "GET", "/v1/stores/fleet.policy.desktops/changes?after=0")) == 401 })
        #expect(try Self.status(server, token: tokenA, "GET", "/v1/stores/fleet.policy.desktops/changes?after=0") == 200)
        // Withdrawn: the machines take back what the group installed.
        try scene.withdraw()
        #expect(eventually(20) { a.lacks("com.example.fleet", "Mode") }, "\(a.agentErrors)")
    }

    @Test("one agent process manages several machines' trees (--root), each with its own credential, groups and report")
    func severalMachinesInOneAgent() throws {
        let scene = try FleetScene(try SyncServer(.sqlite))
        let a = try FleetMachine("one-a"), b = try FleetMachine("one-b"), c = try FleetMachine("one-c")
        try scene.enroll(a, group: "desktops")
        try scene.enroll(b, group: "laptops")
        // Refused before anything runs: a relative tree, one named twice, one not enrolled.
        for (args, says) in [(["--root", "relative/tree"], "absolute path"), (["--root", a.root, "--root", a.root + "/"], "twice"),
                             (["--root", a.root, "--root", c.root], "not enrolled")] {
            let r = try ubiquity(["agent", "--once"] + args, environment: a.environment)
            #expect(r.status != 0 && r.stderr.contains(says), "\(args): \(r.stderr)")
            if says == "not enrolled" { #expect(r.stderr.contains(c.root), "the error names the tree: \(r.stderr)") }
        }
        try a.startAgent(managing: [b])
        try scene.publish(mode: "desk", group: "desktops")
        try scene.publish(mode: "lap", group: "laptops")
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Mode")) == "desk" }, "\(a.agentErrors)")
        #expect(eventually(20) { (try? b.read("com.example.fleet", "Mode")) == "lap" }, "\(a.agentErrors)")
        #expect(eventually(20) { (try? Self.reported(scene.server, a, group: "desktops").revision) == 1 })
        #expect(eventually(20) { (try? Self.reported(scene.server, b, group: "laptops").revision) == 1 })
        // Each machine got its own group's declaration only, and reported as itself.
        #expect(try Self.reported(scene.server, a, group: "laptops").revision == nil)
        #expect(try Self.reported(scene.server, b, group: "desktops").revision == nil)
        #expect(try String(contentsOfFile: a.agentLog, encoding: .utf8).contains("following the groups of 2 machines"))
    }

    @Test("a machine enrolled again while its agent runs is followed under its new credential: the group it left is removed, the new one applied, reported")
    func enrolledAgainWhileRunning() throws {
        let scene = try FleetScene(try SyncServer(.sqlite))
        let a = try FleetMachine("again")
        try scene.enroll(a, group: "desktops")
        try a.startAgent()
        let desk = try scene.publish([try scene.profile("com.example.fleet.desk", ["Desk": "yes"])], group: "desktops")
        try #require(desk.status == 0, "\(desk.stderr)")
        try scene.publish(mode: "labs", group: "labs")
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Desk")) == "yes" }, "\(a.agentErrors)")
        // Enrolled again, in labs only: its old credential is refused from now on.
        try scene.enroll(a, group: "labs")
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Mode")) == "labs" }, "\(a.agentErrors)")
        #expect(eventually(20) { a.lacks("com.example.fleet", "Desk") }, "desktops' profile is removed: \(a.agentErrors)")
        #expect(eventually(20) { (try? Self.reported(scene.server, a, group: "labs").revision) == 1 })
        #expect(try String(contentsOfFile: a.agentLog, encoding: .utf8).contains("enrolled again: following group labs"))
    }

    @Test("a machine in 20 groups follows them on two event streams (16 stores each at most) and applies what the last group publishes")
    func manyGroups() throws {
        let scene = try FleetScene(try SyncServer(.sqlite))
        let a = try FleetMachine("groups-a")
        let groups = (1...20).map { "g\($0)" }
        let r = try a.run(["enroll", scene.server.url] + groups.flatMap { ["--group", $0] }, input: scene.secret + "\n")
        try #require(r.status == 0, "enroll: \(r.stderr)")
        try a.startAgent()
        // Group 15 is the last on the first stream (after the organisation's store); 20 is on the second.
        for (group, key) in [("g15", "Fifteen"), ("g20", "Twenty")] {
            let published = try scene.publish([try scene.profile("com.example.fleet.\(group)", [LiteralString(key): .string(group)])], group: group)
            try #require(published.status == 0, "publish: \(published.stderr)")
        }
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Fifteen")) == "g15" }, "\(a.agentErrors)")
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Twenty")) == "g20" }, "\(a.agentErrors)")
        #expect(eventually(20) { (try? Self.reported(scene.server, a, group: "g20").revision) == 1 })
        #expect(eventually(20) { (try? Self.reported(scene.server, a, group: "g15").revision) == 1 })
    }

    @Test("an organisation outgrows one store and the store quota: 1,025 machines enrol and are listed, each reports, the group still publishes; only a machine writes its status store",
          arguments: Backend.available)
    func manyMachines(backend: Backend) async throws {
        // A quota of three stores: the organisation's own, a group's, and room for one more.
        let scene = try FleetScene(try SyncServer(backend, extraArguments: ["--quota-stores", "3"]))
        let server = scene.server
        let enrolling = HTTPUbiquityTransport(account: UbiquityAccount(server: server.url, token: scene.secret, name: "", identifier: ""),
                                              maximumConnections: 8)
        let count = 1_025
        let tokens = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var tokens: [Int: String] = [:]
            for i in 0..<count {
                if i >= 8, let (n, token) = try await group.next() { tokens[n] = token }
                group.addTask {
                    let answer = try await enrolling.enroll(UbiquityEnrollRequest(machine: String(format: "m%04d", i), host: "host\(i)", groups: ["desktops"]))
                    return (i, answer.token)
                }
            }
            for try await (n, token) in group { tokens[n] = token }
            return tokens
        }
        #expect(tokens.count == count)
        // Machines report (each status store is a store of the account's, beyond the quota).
        for i in [0, 512, 1_024] {
            let machine = String(format: "m%04d", i)
            let transport = HTTPUbiquityTransport(account: UbiquityAccount(server: server.url, token: tokens[i]!, name: "acme", identifier: machine))
            let answer = try await transport.commit(store: UbiquityFleetNames.statusStore(machine: machine), UbiquityCommitRequest(changes: [
                UbiquityWireChange(key: UbiquityFleetNames.reportKey, base: 0, value: UbiquityWireValue.encode(.dictionary(["Machine": .string(machine)]))),
            ]))
            #expect(answer.results.first?.status == .applied, "\(machine): \(answer.refusal ?? "")")
        }
        let listed = try Self.machines(server)
        #expect(listed.count == count)
        #expect(Set(listed.compactMap { $0["host"] as? String }) == Set((0..<count).map { "host\($0)" }))
        // The group's store is the account's second counted store: within the quota.
        try scene.publish(mode: "many")
        // No other token makes a status store (they are not counted): the administrator's is refused.
        let body = #"{"changes":[{"key":"report","base":0,"value":null}]}"#
        #expect(try Self.status(server, token: scene.admin, "POST", "/v1/stores/fleet.status.intruder/commit", body: body) == 403)
        #expect(try Self.status(server, token: tokens[1]!, "POST", "/v1/stores/fleet.status.intruder/commit", body: body) == 403)
        // Counted stores still meet the quota: a second group fills it, a third is refused.
        try scene.publish(mode: "more", group: "laptops")
        let refused = try scene.publish([try scene.profile("com.example.fleet.mode", ["Mode": "over"])], group: "kiosks")
        #expect(refused.status != 0 && refused.stderr.contains("quota"), "\(refused.stderr)")
    }

    @Test("declarations altered, replayed, moved between groups or signed by a stranger are refused by every machine, reported, and nothing of them applied")
    func attacks() throws {
        let scene = try FleetScene(try SyncServer(.sqlite))
        let (server, admin, keys) = (scene.server, scene.admin, scene.keys)
        let a = try FleetMachine("a")
        try scene.enroll(a)
        func publish(_ group: String, _ mode: String, cert: String? = nil, key: String? = nil, unchecked: Bool = false) throws {
            try scene.publish(mode: mode, group: group, cert: cert, key: key, unchecked: unchecked)
        }
        /// The signed declaration the server holds for `group` now (its wire value, base64).
        func held(_ group: String) throws -> (revision: Int, value: String) {
            let r = try runProcess("/usr/bin/curl", ["-s", "-H", "Authorization: Bearer \(admin)", server.url + "/v1/stores/fleet.policy.\(group)/changes?after=0"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let entry = try #require((object["entries"] as? [[String: Any]])?.first { $0["key"] as? String == "declaration" })
            return (entry["revision"] as! Int, entry["value"] as! String)
        }
        /// Commits `value` as group `group`'s declaration with the administrator's token: what a
        /// server (or anyone holding the token but not the key) can do.
        func plant(_ group: String, _ value: String) throws {
            let base = (try? held(group).revision) ?? 0
            let body = #"{"changes":[{"key":"declaration","base":\#(base),"value":"\#(value)"}]}"#
            #expect(try Self.status(server, token: admin, "POST", "/v1/stores/fleet.policy.\(group)/commit", body: body) == 200)
        }
        try publish("desktops", "one")
        let first = try held("desktops").value
        try a.startAgent()
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Mode")) == "one" }, "\(a.agentErrors)")
        try publish("desktops", "two")
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Mode")) == "two" }, "\(a.agentErrors)")

        // Replayed: revision 1 again.
        try plant("desktops", first)
        #expect(eventually(20) { (try? Self.reported(server, a, group: "desktops").refusedKind) == "replayed" })
        #expect(try a.read("com.example.fleet", "Mode") == "two")

        // Altered: the value inside the profile changed ("one" → "eno", the server holds the
        // replayed revision 1 now), the signature kept.
        let current = try held("desktops").value
        var bytes = try #require(Data(base64Encoded: current))
        let range = try #require(bytes.range(of: Data("<string>one</string>".utf8)))
        bytes.replaceSubrange(range, with: Data("<string>eno</string>".utf8))
        try plant("desktops", bytes.base64EncodedString())
        #expect(eventually(20) { (try? Self.reported(server, a, group: "desktops").refusedKind) == "tampered" })
        #expect(try a.read("com.example.fleet", "Mode") == "two")

        // Moved: group labs' declaration (properly signed for labs) delivered as desktops'.
        try publish("labs", "labs")
        try plant("desktops", try held("labs").value)
        #expect(eventually(20) { (try? Self.reported(server, a, group: "desktops").refusedKind) == "misdirected" })
        #expect(try a.read("com.example.fleet", "Mode") == "two")

        // Signed by a stranger (a valid signature under another CA).
        try publish("desktops", "stranger", cert: keys.strangerSigner, key: keys.strangerKey, unchecked: true)
        #expect(eventually(20) { (try? Self.reported(server, a, group: "desktops").refusedKind) == "untrusted" })
        #expect(try a.read("com.example.fleet", "Mode") == "two")
        // Its refusal names the signer, escaped (its name holds ESC [31m).
        #expect(a.agentErrors.contains("\\u{1B}[31mstranger-administrator") && !a.agentErrors.utf8.contains(0x1B), "\(a.agentErrors)")

        // The organisation's next revision is applied again (the refusals are over).
        try publish("desktops", "three")
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Mode")) == "three" }, "\(a.agentErrors)")
        #expect(eventually(20) { (try? Self.reported(server, a, group: "desktops"))?.refusedKind == nil })
    }

    @Test("profiles installed by hand are never touched: the agent reports it leaves them alone, and removes only what it installed")
    func handInstalledProfiles() throws {
        let scene = try FleetScene(try SyncServer(.sqlite))
        let server = scene.server
        let a = try FleetMachine("a")
        try scene.enroll(a)
        let byHand = try scene.profile("com.example.byhand", domain: "com.example.local", ["Local": "mine"])
        let installed = try runProcess(products.appendingPathComponent("profiles").path, ["install", "--path", byHand], environment: a.environment)
        try #require(installed.status == 0, "\(installed.stderr)")
        let same = try scene.profile("com.example.byhand", domain: "com.example.local", ["Local": "fleet"])
        let other = try scene.profile("com.example.fleet.mode", ["Mode": "one"])
        #expect(try scene.publish([same, other]).status == 0)
        try a.startAgent()
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Mode")) == "one" }, "\(a.agentErrors)")
        #expect(try a.read("com.example.local", "Local") == "mine")
        #expect(eventually(20) { (try? Self.reported(server, a, group: "desktops").failures["com.example.byhand"])?.contains("installed by hand") == true })
        try scene.withdraw()
        #expect(eventually(20) { a.lacks("com.example.fleet", "Mode") }, "\(a.agentErrors)")
        #expect(try a.read("com.example.local", "Local") == "mine")
    }

    @Test("publish refuses a profile that does not validate, with the profiles tool's words; nothing is published")
    func publishRefusesBadProfiles() throws {
        let scene = try FleetScene(try SyncServer(.sqlite))
        let (keys, office) = (scene.keys, scene.office)
        let broken = keys.folder.path + "/broken.mobileconfig"
        try Data("<plist><dict><key>PayloadType</key>".utf8).write(to: URL(fileURLWithPath: broken))
        let r = try scene.publish([broken])
        #expect(r.status != 0 && r.stderr.contains(broken) && r.stderr.contains("nothing was published"), "\(r.stderr)")
        let list = try office.run(["policy", "list", "desktops"])
        #expect(list.stdout.contains("desktops\t-\t-\t-"), "\(list.stdout) \(list.stderr)")
        // A key that is not the certificate's is refused before anything is sent.
        let mismatch = try scene.publish([try scene.profile("com.example.fleet.mode", ["Mode": "one"])], key: keys.strangerKey)
        #expect(mismatch.status != 0 && mismatch.stderr.contains("is not the key of"), "\(mismatch.stderr)")
        // Signed by a key the organisation did not issue: every machine would refuse it, so it is not sent.
        let stranger = try scene.publish([try scene.profile("com.example.fleet.mode", ["Mode": "one"])], cert: keys.strangerSigner, key: keys.strangerKey)
        #expect(stranger.status != 0 && stranger.stderr.contains("not the organisation's pinned certificate")
                && stranger.stderr.contains("every machine would refuse it; nothing was published"), "\(stranger.stderr)")
        #expect(!stranger.stderr.utf8.contains(0x1B), "the signer's name reaches the terminal escaped: \(stranger.stderr)")
        #expect(try office.run(["policy", "list", "desktops"]).stdout.contains("desktops\t-\t-\t-"))
        // What a profile names reaches the terminal escaped.
        let loud = try scene.publish([try scene.profile("com.example.fleet.\u{1B}[31mred", ["Mode": "one"])])
        #expect(loud.status == 0 && !loud.stdout.utf8.contains(0x1B) && loud.stdout.contains("com.example.fleet.\\u{1B}[31mred"), "\(loud.stdout) \(loud.stderr)")
    }
    @Test("kill -9 of the agent at random moments around an apply: the machine holds one revision whole, and the next start finishes the job; a declared profile installed by hand stays the administrator's")
    func agentKilledDuringApply() throws {
        let scene = try FleetScene(try SyncServer(.sqlite))
        let a = try FleetMachine("a")
        try scene.enroll(a)
        // Installed by hand, and declared by every revision too: never the agent's, crash or not.
        let byHand = try scene.profile("com.example.byhand", domain: "com.example.local", ["Local": "mine"])
        let installed = try runProcess(products.appendingPathComponent("profiles").path, ["install", "--path", byHand], environment: a.environment)
        try #require(installed.status == 0, "\(installed.stderr)")
        let count = 12
        /// Publishes revision `mode` of `count` profiles, each forcing its own key to `mode`, and the one installed by hand.
        func publish(_ mode: String) throws {
            let files = try (0..<count).map { try scene.profile("com.example.fleet.p\($0)", domain: "com.example.fleet\($0)", ["Mode": .string(mode)]) }
                + [try scene.profile("com.example.byhand", domain: "com.example.local", ["Local": .string(mode)])]
            let r = try scene.publish(files)
            try #require(r.status == 0, "publish: \(r.stderr)")
        }
        /// The value every profile forces, or nil when they disagree (a half-applied declaration).
        func state() throws -> String?? {
            let values = Set(try (0..<count).map { try a.read("com.example.fleet\($0)", "Mode") })
            return values.count == 1 ? values.first : nil
        }
        try publish("m0")
        try a.startAgent()
        #expect(eventually(20) { (try? state()) == "m0" }, "\(a.agentErrors)")
        var random = SeededRandom()
        var killedDuring = 0
        for round in 1...8 {
            a.stopAgent()
            try publish("m\(round)")
            // Started again, it applies the new revision at once: killed somewhere in that.
            let notify = try NotifySocket(in: a.home.path)
            let agent = try startProcess(products.appendingPathComponent("ubiquity").path, ["agent"],
                                         environment: a.environment.merging(notify.environment) { $1 })
            usleep(UInt32.random(in: 0...250_000, using: &random))
            kill(agent.processIdentifier, SIGKILL)
            agent.waitUntilExit()
            let now = try state()
            #expect(now == "m\(round - 1)" || now == "m\(round)", "round \(round): the machine holds \(String(describing: now)) (seed \(random.seed))")
            if now == "m\(round - 1)" { killedDuring += 1 }
            // The next start finishes the job.
            try a.startAgent()
            #expect(eventually(20) { (try? state()) == "m\(round)" }, "round \(round): \(a.agentErrors)")
            #expect(try a.read("com.example.local", "Local") == "mine", "round \(round) (seed \(random.seed))")
        }
        // Whether a kill fell inside the profiles' change itself (a few ms of the 250) is not observed: the
        // test holds every kill to "one revision whole", wherever it fell.
        print("kill -9 of the agent: \(killedDuring) of 8 kills landed before the new revision was in place (seed \(random.seed))")
    }

    @Test("the server away: the machines keep their policy, and apply what is published once it is back")
    func serverAway() throws {
        let scene = try FleetScene(try SyncServer(.sqlite))
        let server = scene.server
        let a = try FleetMachine("a")
        try scene.enroll(a)
        func publish(_ mode: String) throws { try scene.publish(mode: mode) }
        try publish("one")
        try a.startAgent()
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Mode")) == "one" })
        server.kill()
        #expect(eventually(20) { a.agentErrors.contains("lost the server") }, "\(a.agentErrors)")
        #expect(try a.read("com.example.fleet", "Mode") == "one", "the policy stays while the server is away")
        try server.restart()
        let back = ContinuousClock.now
        try publish("two")
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Mode")) == "two" }, "\(a.agentErrors)")
        print("fleet: a declaration published as the server came back was applied \(ContinuousClock.now - back) after its return (publish included)")
        let audit = try ubiquity(["org", "audit", "acme"] + server.databaseArguments, environment: server.environment)
        #expect(audit.status == 0 && audit.stdout.contains("\(a.id)\tdesktops\t2\t"), "\(audit.stdout) \(audit.stderr)")
    }
    @Test("two instances over one PostgreSQL database: published through one, applied by a machine of the other; an instance restarted misses nothing",
          .requires(.postgres))
    func twoInstances() throws {
        let first = try SyncServer(.postgres)
        let second = try SyncServer(sharing: first)
        let scene = try FleetScene(first, publishVia: second)
        let a = try FleetMachine("a")
        try scene.enroll(a)
        func publish(_ mode: String) throws { try scene.publish(mode: mode) }
        try a.startAgent()
        try publish("one")
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Mode")) == "one" }, "\(a.agentErrors)")
        // The machine's instance goes away; two revisions are published through the other meanwhile.
        first.kill()
        try publish("two")
        try publish("three")
        try first.restart()
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Mode")) == "three" }, "\(a.agentErrors)")
        #expect(eventually(20) { (try? Self.reported(first, a, group: "desktops").revision) == 3 })
    }
    @Test("machines enrolled while commits land leave the SQLite database usable by the tools (a server's token writes never ride its group-commit connection)")
    func enrolmentDuringCommits() throws {
        let scene = try FleetScene(try SyncServer(.sqlite))
        let server = scene.server
        let machines = try (0..<8).map { try FleetMachine("m\($0)") }
        let stop = Locked(false)
        // Commits without pause, with the administrator's token, while the machines enrol.
        let writer = Thread {
            var n = 0
            while !stop.value {
                n += 1
                let body = #"{"changes":[{"key":"k\#(n)","base":0,"value":null}]}"#
                _ = try? FleetTests.status(server, token: scene.admin, "POST", "/v1/stores/com.example.busy/commit", body: body)
            }
        }
        writer.start()
        DispatchQueue.concurrentPerform(iterations: machines.count) { i in
            let r = try? machines[i].run(["enroll", server.url, "--group", "desktops"], input: scene.secret + "\n")
            #expect(r?.status == 0, "enroll \(i): \(r?.stderr ?? "")")
        }
        stop.set(true)
        // A tool opens the database beside the running server, as an administrator does.
        let listed = try ubiquity(["org", "machines", "acme", "--output", "json"] + server.databaseArguments, environment: server.environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect((try? JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])?.count == machines.count, "\(listed.stdout)")
        let check = try server.check()
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
    }
    @Test("key rotation: a hand-over signed under the pinned certificate moves every machine to the new one; the old key then signs nothing they apply, and a stranger's hand-over is refused")
    func keyRotation() throws {
        let scene = try FleetScene(try SyncServer(.sqlite))
        let (server, keys) = (scene.server, scene.keys)
        let a = try FleetMachine("a")
        try scene.enroll(a)
        try a.startAgent()
        try scene.publish(mode: "one")
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Mode")) == "one" }, "\(a.agentErrors)")
        let next = try FleetKeys()   // the organisation's next CA and a signer it issued
        func pinned() throws -> String? { try Self.machines(server).first { $0["machine"] as? String == a.id }?["pinned"] as? String }
        let before = try pinned()
        // A stranger's hand-over (signed under another CA) is refused; nothing changes.
        let refused = try scene.office.run(["policy", "hand-over", "--new-cert", next.ca, "--signing-cert", keys.strangerSigner, "--signing-key", keys.strangerKey])
        #expect(refused.status != 0 && refused.stderr.contains("every machine would refuse it; nothing was handed over"), "\(refused.stderr)")
        let stranger = try scene.office.run(["policy", "hand-over", "--new-cert", next.ca, "--signing-cert", keys.strangerSigner, "--signing-key", keys.strangerKey,
                                             "--skip-signer-check"])
        #expect(stranger.status == 0, "the server takes it (it holds no key): \(stranger.stderr)")
        // The server now holds the stranger's certificate as the organisation's: the check before
        // sending (the server's word) refuses the organisation's own hand-over, naming what it holds.
        let blocked = try scene.office.run(["policy", "hand-over", "--new-cert", next.ca, "--signing-cert", keys.signer, "--signing-key", keys.signerKey])
        #expect(blocked.status != 0 && blocked.stderr.contains("the server holds the organisation's certificate as SHA-256"), "\(blocked.stderr)")
        #expect(eventually(20) { (try? Self.machines(server).first { $0["machine"] as? String == a.id }?["handoverRefused"] as? String)?.contains("not the organisation's pinned certificate") == true })
        #expect(try pinned() == before)
        // The organisation's own hand-over.
        let handed = try scene.office.run(["policy", "hand-over", "--new-cert", next.ca, "--signing-cert", keys.signer, "--signing-key", keys.signerKey,
                                           "--skip-signer-check"])
        #expect(handed.status == 0 && handed.stdout.contains("Handed over to"), "\(handed.stderr)")
        #expect(eventually(20) { (try? pinned()) != before && (try? pinned()) != nil }, "\(a.agentErrors)")
        // Signed under the new CA: applied. Under the old one: refused.
        try scene.publish(mode: "two", cert: next.signer, key: next.signerKey)
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Mode")) == "two" }, "\(a.agentErrors)")
        let old = try scene.publish([try scene.profile("com.example.fleet.mode", ["Mode": "old-key"])])
        #expect(old.status != 0 && old.stderr.contains("every machine would refuse it; nothing was published"), "the old key, after the hand-over: \(old.stderr)")
        try scene.publish(mode: "old-key", unchecked: true)
        #expect(eventually(20) { (try? Self.reported(server, a, group: "desktops").refusedKind) == "untrusted" })
        #expect(try a.read("com.example.fleet", "Mode") == "two")
        // A machine that enrols now pins the new certificate: it applies what the new CA signed.
        try scene.publish(mode: "three", cert: next.signer, key: next.signerKey)
        let b = try FleetMachine("b")
        try scene.enroll(b)
        let once = try b.run(["agent", "--once"])
        #expect(once.status == 0, "\(once.stderr)")
        #expect(try b.read("com.example.fleet", "Mode") == "three", "\(once.stdout) \(once.stderr)")
        #expect(eventually(20) { (try? a.read("com.example.fleet", "Mode")) == "three" }, "\(a.agentErrors)")
    }
    @Test("the server's metrics: machines current and behind per group, reports, failures by reason, report latency",
          .requires(.prometheusParser))
    func metrics() async throws {
        let port = ObservabilityTests.freePort()
        let scene = try FleetScene(try SyncServer(.sqlite, extraArguments: ["--metrics", "127.0.0.1:\(port)"]))
        let endpoint = MetricsEndpoint(port: port)
        let a = try FleetMachine("a"), b = try FleetMachine("b")
        for m in [a, b] { try scene.enroll(m) }
        var scraped: [String: [String: Double]] = [:]
        #expect(await settle(10) { scraped = (try? endpoint.scrape()) ?? [:]; return scraped["ubiquity_fleet_failures_total"] != nil })
        for reason in ["tampered", "untrusted", "replayed", "misdirected", "malformed", "apply", "profile", "other"] {
            #expect(scraped["ubiquity_fleet_failures_total"]?["reason=\(reason)"] == 0, "\(reason): \(scraped)")
        }
        try a.startAgent()
        try scene.publish(mode: "one")
        let labels = "group=desktops,organization=acme"
        #expect(await settle(20) {
            scraped = (try? endpoint.scrape()) ?? [:]
            return scraped["ubiquity_fleet_machines"]?["\(labels),state=current"] == 1
        }, "\(scraped["ubiquity_fleet_machines"] ?? [:])")
        #expect((scraped["ubiquity_fleet_report_latency_seconds_count"]?[""] ?? 0) >= 1, "\(scraped.keys.sorted())")
        // b runs once on revision 1, then revision 2 is published: a is current, b behind.
        #expect(try b.run(["agent", "--once"]).status == 0)
        a.stopAgent()
        try scene.publish(mode: "two")
        try a.startAgent()
        #expect(await settle(20) {
            scraped = (try? endpoint.scrape()) ?? [:]
            return scraped["ubiquity_fleet_machines"]?["\(labels),state=current"] == 1 && scraped["ubiquity_fleet_machines"]?["\(labels),state=behind"] == 1
        }, "\(scraped["ubiquity_fleet_machines"] ?? [:])")
        // A stranger's declaration: one failure, counted once however often the machine reports it.
        try scene.publish(mode: "stranger", cert: scene.keys.strangerSigner, key: scene.keys.strangerKey, unchecked: true)
        #expect(await settle(20) {
            scraped = (try? endpoint.scrape()) ?? [:]
            return scraped["ubiquity_fleet_failures_total"]?["reason=untrusted"] == 1
        }, "\(scraped["ubiquity_fleet_failures_total"] ?? [:])")
        #expect((scraped["ubiquity_fleet_reports_total"]?[""] ?? 0) >= 4)
    }
}
