import Foundation
import Testing
import TestSupport

/// Runs `Scripts/body_attacks.py` against `server` (off the cooperative pool: it takes seconds); the JSON it printed.
func bodyAttack(_ server: SyncServer, token: String, _ args: [String]) async throws -> [String: Double] {
    try await offThePool { try bodyAttackBlocking(server, token: token, args) }
}

func bodyAttackBlocking(_ server: SyncServer, token: String, _ args: [String]) throws -> [String: Double] {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/body_attacks.py").path
    let data = try runProcess("/usr/bin/env", ["python3", script, String(server.port), String(server.process!.processIdentifier), token] + args)
        .stdoutData
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    return object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
}

/// Issue 25 items 2 and 5: a request is judged on its head before its body is
/// read, a body has a deadline of its own, and a flood of connections meets a
/// cap below the file limit that sheds idle unauthenticated connections first.
@Suite("ubiquity serve: bodies and connections under attack", .offThePool, .exclusive(.servers), .serialized, .timeLimit(.minutes(5)))
struct BodyAttackTests {
    @Test("300 unauthenticated commits declaring 4 MB and sending 1 MB are answered 401 at once and closed; memory stays small; a client is served meanwhile",
          arguments: Backend.available)
    func unauthenticatedBodies(backend: Backend) async throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let r = try await bodyAttack(server, token: token, ["unauthenticated", "300", String(1 << 20)])
        print("unauthenticated bodies (\(backend)): \(r)")
        #expect(r["answered401"] == 300, "\(r)")
        #expect(r["closed"] == 300, "\(r)")
        // Before: each connection's body so far was held (143 MB here; 1.3 GB at 4 MB each).
        #expect((r["rss_mb"] ?? 1e9) < 100, "\(r)")
        #expect(r["normal"] == 200, "\(r)")
    }

    @Test("an authenticated body that trickles in (a byte every 0.5 s) is refused with 408 after its grace period",
          arguments: Backend.available)
    func slowBody(backend: Backend) async throws {
        let server = try SyncServer(backend, extraArguments: ["--body-timeout", "2", "--body-rate", "100"])
        let token = try server.addAccount("alice")
        let r = try await bodyAttack(server, token: token, ["slow", "20"])
        // Before: the idle timeout restarted with every byte; no answer in 20 s.
        #expect(r["status"] == 408, "\(r)")
        #expect((r["seconds"] ?? 99) < 10, "\(r)")
    }

    @Test("with 256 descriptors, 400 idle connections do not lock out a client: the cap sheds the oldest idle ones")
    func descriptorFlood() async throws {
        let server = try SyncServer(.sqlite, launcher: ["/usr/bin/prlimit", "--nofile=256:256"])
        let token = try server.addAccount("alice")
        let r = try await bodyAttack(server, token: token, ["idle", "400"])
        print("descriptor flood: \(r)")
        // Before: the 1,024-descriptor server ran out of descriptors; the client timed out.
        #expect(r["normal"] == 200, "\(r)")
        #expect((r["closed"] ?? 0) >= 400 - 256, "\(r)")
    }
}

extension BodyAttackTests {
    @Test("expanding values, unauthenticated bodies and 400 idle connections at once: the server stays under 512 MB and answers a client meanwhile",
          arguments: Backend.available)
    func everythingAtOnce(backend: Backend) async throws {
        let server = try SyncServer(backend)
        let token = try server.addAccount("alice")
        let bomb = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/bomb-30.bplist").path
        let r = try await bodyAttack(server, token: token, ["combined", bomb])
        print("everything at once (\(backend)): \(r)")
        #expect((r["peak_rss_mb"] ?? 1e9) < 512, "\(r)")
        #expect(r["normal_ok"] == r["normals"], "\(r)")
        #expect((r["bombs"] ?? 0) > 0 && r["bombs_refused"] == r["bombs"], "\(r)")
        // The promised figure (100 ms) is reported by this line and measured in the note;
        // the test holds a generous bound that still catches a server that stalls.
        #expect((r["normal_max_ms"] ?? 1e9) < 5_000, "\(r)")
    }
}
