import Foundation
import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing
import TestSupport
import UbiquityProtocol

/// `ubiquity serve --config FILE`: the settings file, `UBIQUITY_*` variables
/// and the command line, in that increasing order of precedence, through swift-configuration.
@Suite("ubiquity serve: settings from a file, the environment and the command line", .offThePool, .exclusive(.servers), .timeLimit(.minutes(5)))
struct ServerSettingsTests {
    /// The number of stores the server lets an account make (its stores quota, as it behaves).
    func storesAllowed(_ server: SyncServer) async throws -> Int {
        let token = try server.addAccount("alice")
        let t = HTTPUbiquityTransport(account: server.account(token: token))
        for i in 1...5 where try await QuotaTests.commit(t, "com.example.s\(i)", "k", .integer(1)).refusal != nil { return i - 1 }
        return 5
    }

    /// Kept for the test's length (a temporary folder is removed when released).
    let folder = try! TemporaryFolder("settings")

    func settingsFile(_ values: [LiteralString: PropertyList]) throws -> String {
        let path = folder.path + "/ubiquity-\(UUID().uuidString.prefix(8)).plist"
        try PropertyList.dictionary(values).data(as: .xml).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("commands that manage a database refuse a missing one (a mistyped --data, a forgotten --config), and make nothing; --create makes the first")
    func missingDatabase() throws {
        let env = ProcessInfo.processInfo.environment
        let typo = folder.path + "/dta"
        for words in [["account", "add", "alice", "--data", typo], ["account", "list", "--data", typo], ["check", "--data", typo]] {
            let r = try ubiquity(words, environment: env)
            #expect(r.status == 1 && r.stdout.isEmpty, "\(words)")
            #expect(r.stderr == "ubiquity: no database in \(typo) (no ubiquity.sqlite there): name the server's with --config FILE (such as /etc/opendefaults/ubiquity.plist), --data DIR or --postgres URL; `ubiquity serve` or `ubiquity account add --create` makes a new one\n", "\(words): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: typo), "\(words) made \(typo)")
        }
        // The first account makes the database when asked to; then the settings file names it for every command.
        let data = folder.path + "/data"
        let made = try ubiquity(["account", "add", "alice", "--create", "--data", data], environment: env)
        #expect(made.status == 0 && FileManager.default.fileExists(atPath: data + "/ubiquity.sqlite"), "\(made.stderr)")
        let file = try settingsFile(["data": .string(data)])
        let listed = try ubiquity(["account", "list", "--config", file], environment: env)
        #expect(listed.status == 0 && listed.stdout.contains("alice"), "\(listed.stderr)")
        #expect(try ubiquity(["account", "add", "bob", "--config", file], environment: env).status == 0)
    }

    @Test("the file applies; a UBIQUITY_ variable wins over it; the command line wins over both")
    func precedence() async throws {
        let file = try settingsFile(["quota-stores": 1, "allow-host": ["sync.example"]])
        #expect(try await storesAllowed(SyncServer(extraArguments: ["--config", file])) == 1)
        #expect(try await storesAllowed(SyncServer(extraArguments: ["--config", file], environment: ["UBIQUITY_QUOTA_STORES": "2"])) == 2)
        #expect(try await storesAllowed(SyncServer(extraArguments: ["--config", file, "--quota-stores", "3"],
                                                   environment: ["UBIQUITY_QUOTA_STORES": "2"])) == 3)
        // An array from the file: the extra Host name is answered.
        let server = try SyncServer(extraArguments: ["--config", file])
        #expect(try rawRequest(server, path: "/healthz", headers: ["Host": "sync.example"]).status == 200)
        #expect(try rawRequest(server, path: "/healthz", headers: ["Host": "other.example"]).status != 200)
    }

    @Test("an unknown key, a value of the wrong type, a bad variable, a missing file: exit 64 naming the file and key, or the variable")
    func refusals() throws {
        let env = ProcessInfo.processInfo.environment
        let unknown = try settingsFile(["prot": 1])
        let r1 = try ubiquity(["serve", "--config", unknown], environment: env)
        #expect(r1.status == 64 && r1.stderr.contains("\(unknown): unknown setting \"prot\""), "\(r1.stderr)")
        let wrong = try settingsFile(["port": "eighty"])
        let r2 = try ubiquity(["serve", "--config", wrong], environment: env)
        #expect(r2.status == 64 && r2.stderr.contains("\(wrong): port: expected an integer, found a string"), "\(r2.stderr)")
        var bad = env
        bad["UBIQUITY_MAX_CONNECTIONS"] = "lots"
        let r3 = try ubiquity(["serve", "--port", "0"], environment: bad)
        #expect(r3.status == 64 && r3.stderr.contains("UBIQUITY_MAX_CONNECTIONS: expected an integer, found \"lots\""), "\(r3.stderr)")
        let r4 = try ubiquity(["serve", "--config", "/nonexistent/ubiquity.plist"], environment: env)
        #expect(r4.status == 64 && r4.stderr.contains("/nonexistent/ubiquity.plist"), "\(r4.stderr)")
        // PostgreSQL URLs naming several servers: each is checked.
        let badPort = try ubiquity(["check", "--postgres", "postgres://u@db1:5432,db2:x/kv"], environment: env)
        #expect(badPort.status == 64 && badPort.stderr.contains("the port \"x\" is not 1 to 65535"), "\(badPort.stderr)")
        let many = (1...17).map { "db\($0)" }.joined(separator: ",")
        let tooMany = try ubiquity(["check", "--postgres", "postgres://u@\(many)/kv"], environment: env)
        #expect(tooMany.status == 64 && tooMany.stderr.contains("1 to 16 hosts"), "\(tooMany.stderr)")
        // Beyond loopback without TLS, from the file too.
        let open = try settingsFile(["host": "0.0.0.0"])
        let r5 = try ubiquity(["serve", "--config", open], environment: env)
        #expect(r5.status == 64 && r5.stderr.contains("\(open): host is 0.0.0.0: listening beyond loopback needs tls-cert and tls-key, or insecure"), "\(r5.stderr)")
        // Each refusal of a value from the file names the file and its key, never the flag.
        for (values, message) in [
            (["log-level": "loud"] as [LiteralString: PropertyList], ": log-level is one of trace, debug, info, notice, warning, error, critical, not \"loud\""),
            (["log-format": "xml"], ": log-format is logfmt or json, not \"xml\""),
            (["metrics": "nine"], ": metrics is ADDRESS:PORT, for example 127.0.0.1:9470, not \"nine\""),
            (["metrics": "0.0.0.0:9470"], ": metrics listens on loopback only (0.0.0.0 is not)"),
            (["stop-timeout": 0], ": stop-timeout must be from 1 to 86400 seconds, not 0"),
        ] {
            let file = try settingsFile(values)
            let r = try ubiquity(["serve", "--config", file], environment: env)
            #expect(r.status == 64 && r.stderr.contains(file + message) && !r.stderr.contains("--"), "\(values): \(r.stderr)")
        }
        // From the command line: the flag.
        let flag = try ubiquity(["serve", "--log-level", "loud"], environment: env)
        #expect(flag.status == 64 && flag.stderr.contains("--log-level is one of"), "\(flag.stderr)")
    }
}
