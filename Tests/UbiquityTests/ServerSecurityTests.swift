import Foundation
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PlatformIO
import PropertyList
import Testing
import TestSupport

/// A raw HTTP/1.1 exchange with the server (curl from the test, headers as given).
func rawRequest(_ server: SyncServer, method: String = "GET", path: String, headers: [String: String] = [:], body: String? = nil,
                insecureTLS: Bool = false) throws -> (status: Int, body: String) {
    var args = ["-s", "-o", "-", "-w", "\n%{http_code}", "-X", method]
    if insecureTLS { args.append("-k") }
    for (k, v) in headers { args += ["-H", "\(k): \(v)"] }
    if let body { args += ["--data-binary", body] }
    args.append(server.url + path)
    let text = try runProcess("/usr/bin/curl", args).stdout
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
}

@Suite("ubiquity serve: accounts, isolation and hostile requests", .offThePool, .exclusive(.servers), .timeLimit(.minutes(10)), .serialized)
struct ServerSecurityTests {
    @Test("an account can never read or write another account's stores", .requires(.curl), arguments: Backend.available)
    func isolation(backend: Backend) async throws {
        let server = try SyncServer(backend)
        let alice = try server.addAccount("alice"), bob = try server.addAccount("bob")
        let ta = HTTPUbiquityTransport(account: server.account(token: alice))
        let tb = HTTPUbiquityTransport(account: server.account(token: bob))
        let id = "com.example.private"
        let write = UbiquityCommitRequest(changes: [UbiquityWireChange(key: "secret", base: 0, value: UbiquityWireValue.encode(.string("alice's")))])
        #expect(try await ta.commit(store: id, write).results.first?.status == .applied)
        // Bob sees an empty store of the same name, and his writes land in his own.
        let seen = try await tb.changes(store: id, after: 0, wait: nil)
        #expect(seen.entries.isEmpty && seen.revision == 0)
        let bobWrite = UbiquityCommitRequest(changes: [UbiquityWireChange(key: "secret", base: 0, value: UbiquityWireValue.encode(.string("bob's")))])
        #expect(try await tb.commit(store: id, bobWrite).results.first?.status == .applied)
        let hers = try await ta.changes(store: id, after: 0, wait: nil)
        #expect(hers.entries.map(\.value) == [UbiquityWireValue.encode(.string("alice's"))])
        // A wrong token, or none, gets 401.
        let forged = HTTPUbiquityTransport(account: server.account(token: alice + "0"))
        await #expect(throws: UbiquityError.self) { _ = try await forged.changes(store: id, after: 0, wait: nil) }
        #expect(try rawRequest(server, path: "/v1/stores/\(id)/changes").status == 401)
        #expect(try rawRequest(server, path: "/v1/account", headers: ["Authorization": "Basic YWxpY2U6eA=="]).status == 401)
        // Tokens are stored hashed: the database does not contain them.
        switch backend {
        case .sqlite:
            let db = try Data(contentsOf: URL(fileURLWithPath: server.data + "/ubiquity.sqlite"))
            let wal = (try? Data(contentsOf: URL(fileURLWithPath: server.data + "/ubiquity.sqlite-wal"))) ?? Data()
            for token in [alice, bob] {
                #expect(db.range(of: Data(token.utf8)) == nil && wal.range(of: Data(token.utf8)) == nil)
            }
        case .postgres:
            let cluster = try #require(PostgresCluster.shared)
            let database = PostgresCluster.databaseName(try #require(server.postgres))
            let dump = try cluster.run(cluster.bin + "/pg_dump", ["-h", cluster.folder, "-U", cluster.user, "-d", database])
            #expect(dump.status == 0 && dump.stdout.contains("CREATE TABLE public.tokens"), "\(dump.stderr)")
            for token in [alice, bob] { #expect(!dump.stdout.contains(token)) }
        }
    }

    @Test("/healthz and /readyz answer without a token and say nothing private; other methods are refused", .requires(.curl), arguments: Backend.available)
    func healthAndReadiness(backend: Backend) throws {
        let server = try SyncServer(backend)
        _ = try server.addAccount("alice")
        let alive = try rawRequest(server, path: "/healthz")
        #expect(alive.status == 200 && alive.body.contains("\"ok\""), "\(alive)")
        let ready = try rawRequest(server, path: "/readyz")
        #expect(ready.status == 200 && ready.body == #"{"status":"ready"}"#, "\(ready)")
        #expect(try rawRequest(server, method: "POST", path: "/readyz").status == 405)
        // Still refused from a web page, as everything is.
        #expect(try rawRequest(server, path: "/readyz", headers: ["Origin": "https://evil.example"]).status == 403)
    }

    @Test("web pages (an Origin header) and unknown Host names are refused; malformed requests get 4xx, never 5xx",
          .requires(.curl), arguments: Backend.available)
    func hostileRequests(backend: Backend) async throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let auth = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        // A valid commit of `key` (a new key: base 0). Each refused request below
        // carries a key of its own, so that a write that leaked would be applied
        // (not a conflict) and seen at the end.
        func commit(_ key: String) -> String {
            #"{"changes":[{"key":"\#(key)","base":0,"value":"YnBsaXN0MDAJCAAAAAAAAAEBAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAJ"}]}"#
        }
        #expect(try rawRequest(server, method: "POST", path: "/v1/stores/s/commit", headers: auth, body: commit("k")).status == 200)
        // The scheme's name in any ASCII case; anything else is no bearer token.
        #expect(try rawRequest(server, path: "/v1/account", headers: ["Authorization": "bEaReR \(token)"]).status == 200)
        for other in ["Basic \(token)", "Bearer\(token)", "Bearer", "Beare \(token)"] {
            #expect(try rawRequest(server, path: "/v1/account", headers: ["Authorization": other]).status == 401, "\(other)")
        }
        // A page on another site, with the token somehow at hand, still cannot write.
        let fromPage = try rawRequest(server, method: "POST", path: "/v1/stores/s/commit",
                                      headers: auth.merging(["Origin": "https://evil.example"]) { a, _ in a }, body: commit("from-page"))
        #expect(fromPage.status == 403)
        // DNS rebinding: a Host that is not this server's.
        #expect(try rawRequest(server, path: "/v1/account", headers: auth.merging(["Host": "evil.example"]) { a, _ in a }).status == 421)
        #expect(try rawRequest(server, method: "POST", path: "/v1/stores/s/commit", headers: auth.merging(["Host": "evil.example"]) { a, _ in a },
                               body: commit("rebound")).status == 421)
        for (body, why) in [("{", "truncated JSON"), (#"{"changes":[]}"#, "no change"),
                            (#"{"changes":[{"key":"bad-value","base":0,"value":"not base64!"}]}"#, "bad value"),
                            (#"{"changes":[{"key":"negative","base":-1,"value":null}]}"#, "negative base"),
                            (#"{"changes":[{"key":"twice","base":0},{"key":"twice","base":0}]}"#, "duplicate key"),
                            (#"{"changes":[{"key":"not-plist","base":0,"value":"AAAA"}]}"#, "not a property list")] {
            let r = try rawRequest(server, method: "POST", path: "/v1/stores/s/commit", headers: auth, body: body)
            #expect(r.status == 400, "\(why): \(r)")
            #expect(r.body.contains("\"error\""), "\(why): \(r.body)")
        }
        #expect(try rawRequest(server, method: "POST", path: "/v1/stores/.hidden/commit", headers: auth, body: commit("hidden")).status == 400)
        #expect(try rawRequest(server, path: "/v1/stores/s/changes?after=-3", headers: auth).status == 400)
        #expect(try rawRequest(server, path: "/v1/stores/s/changes?wait=nan", headers: auth).status == 400)
        #expect(try rawRequest(server, method: "DELETE", path: "/v1/account", headers: auth).status == 405)
        #expect(try rawRequest(server, path: "/nothing", headers: auth).status == 404)
        #expect(try rawRequest(server, path: "/v1/stores/s/changes?wait=31", headers: auth).status == 400)
        // A body a page could send without a preflight (text/plain, a form) is refused.
        var plain = auth
        plain["Content-Type"] = "text/plain"
        #expect(try rawRequest(server, method: "POST", path: "/v1/stores/s/commit", headers: plain, body: commit("text-plain")).status == 415)
        plain["Content-Type"] = "application/x-www-form-urlencoded"
        #expect(try rawRequest(server, method: "POST", path: "/v1/stores/s/commit", headers: plain, body: commit("form")).status == 415)
        // A body over 4 MiB is refused without being read whole (a valid commit, padded).
        let folder = try TemporaryFolder("huge")
        let padded = commit("huge").dropLast() + #","padding":""# + String(repeating: "x", count: 5 << 20) + #""}"#
        try Data(padded.utf8).write(to: folder.url.appendingPathComponent("body"))
        #expect(try rawRequest(server, method: "POST", path: "/v1/stores/s/commit", headers: auth, body: "@" + folder.path + "/body").status == 413)
        // Nothing refused was written: the store holds the one accepted key, at revision 1.
        let t = HTTPUbiquityTransport(account: server.account(token: token))
        let stored = try await t.changes(store: "s", after: 0, wait: nil)
        #expect(stored.revision == 1 && stored.entries.map(\.key) == ["k"], "\(stored)")
        #expect(try server.check().status == 0)
    }

    @Test("plain HTTP beyond loopback is refused at start; TLS with a certificate works end to end",
          .requires(.openssl))
    func tls() throws {
        let refused = try ubiquity(["serve", "--host", "0.0.0.0", "--port", "0", "--data", "/nonexistent"], environment: ProcessInfo.processInfo.environment)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--tls-cert"), "\(refused.stderr)")
        let certs = try TemporaryFolder("tls")
        let openssl = try runProcess("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                                                          "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                                                          "-keyout", certs.path + "/key.pem", "-out", certs.path + "/cert.pem"])
        #expect(openssl.status == 0, "\(openssl.stderr)")
        let server = try SyncServer(extraArguments: ["--tls-cert", certs.path + "/cert.pem", "--tls-key", certs.path + "/key.pem"])
        #expect(server.url.hasPrefix("https://"))
        let token = try server.addAccount("alice")
        let a = try Machine("a"), b = try Machine("b")
        // Without trusting the certificate, login fails, saying why and how to trust it.
        let untrusted = try a.run("login", server.url, token)
        #expect(untrusted.status == 1)
        #expect(untrusted.stderr.contains("the server's TLS certificate is not trusted here") && untrusted.stderr.contains("--ca-file"), "\(untrusted.stderr)")
        #expect(!untrusted.stderr.contains("CERTIFICATE_VERIFY_FAILED"), "\(untrusted.stderr)")
        // A CA file that is not one: refused before any request.
        let notPEM = certs.path + "/not.pem"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notPEM))
        let badCA = try a.run("login", server.url, token, "--ca-file", notPEM)
        #expect(badCA.status == 1 && badCA.stderr.contains("--ca-file: \(notPEM)"), "\(badCA.stderr)")
        for m in [a, b] {
            let r = try m.run("login", server.url, token, "--ca-file", certs.path + "/cert.pem")
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(try a.run("set", "--store", "com.example.tls", "k", "over TLS").status == 0)
        #expect(try b.run("get", "--store", "com.example.tls", "k").stdout == "over TLS\n")
    }

    @Test("bound to every address without allow-host, only this machine's own names are answered (DNS rebinding)",
          .requires(.curl))
    func everyAddress() throws {
        let hostName = try String(contentsOfFile: "/proc/sys/kernel/hostname", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let names = HostNames.machineNames()
        #expect(names.contains("127.0.0.1") && names.contains(hostName), "\(names)")
        let server = try SyncServer(extraArguments: ["--host", "0.0.0.0", "--insecure"])
        func status(_ host: String) throws -> Int { try rawRequest(server, path: "/healthz", headers: ["Host": host]).status }
        // It answered every name before: a page rebound to this machine's address could be read from.
        #expect(try status("evil.example") == 421)
        #expect(try status("evil.example:\(server.port)") == 421)
        for name in ["127.0.0.1", "localhost", hostName, "\(hostName):\(server.port)"] + names {
            #expect(try status(name) == 200, "\(name)")
        }
        // Names given: those and loopback's, not the machine's own besides.
        let listed = try SyncServer(extraArguments: ["--host", "0.0.0.0", "--insecure", "--allow-host", "sync.example.com"])
        #expect(try rawRequest(listed, path: "/healthz", headers: ["Host": "sync.example.com"]).status == 200)
        #expect(try rawRequest(listed, path: "/healthz", headers: ["Host": "localhost"]).status == 200)
        #expect(try rawRequest(listed, path: "/healthz", headers: ["Host": "evil.example"]).status == 421)
        if hostName != "localhost" {
            #expect(try rawRequest(listed, path: "/healthz", headers: ["Host": hostName]).status == 421)
        }
    }

    @Test("a certificate or key that cannot be used is refused at start, naming the file and why",
          .requires(.openssl))
    func unusableTLSFiles() throws {
        let certs = try TemporaryFolder("tls-files")
        let (cert, key, otherKey) = (certs.path + "/cert.pem", certs.path + "/key.pem", certs.path + "/other-key.pem")
        for (k, c) in [(key, cert), (otherKey, certs.path + "/other-cert.pem")] {
            let made = try runProcess("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                                                           "-keyout", k, "-out", c])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let data = try TemporaryFolder("tls-data")
        // Each refused at start, exit 1, naming the file and why (it printed "Error: failedToLoadCertificate" before).
        let cases: [(certificate: String, key: String, named: String, why: String)] = [
            (certs.path + "/missing.pem", key, certs.path + "/missing.pem", "cannot be read"),
            (key, key, key, "holds no PEM certificate"),
            (cert, cert, cert, "holds no unencrypted PEM private key"),
            (cert, otherKey, otherKey, "is not the private key of the certificate"),
        ]
        for c in cases {
            let r = try ubiquity(["serve", "--port", "0", "--data", data.path, "--tls-cert", c.certificate, "--tls-key", c.key],
                                 environment: ProcessInfo.processInfo.environment)
            #expect(r.status == 1, "\(c): \(r.stderr)")
            #expect(r.stderr.hasPrefix("ubiquity: the TLS ") && r.stderr.contains(c.named) && r.stderr.contains(c.why), "\(c): \(r.stderr)")
        }
    }
}
