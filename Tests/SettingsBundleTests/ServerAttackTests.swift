import Foundation
import Testing
import TestSupport

/// The attacks of issue 12 on a real `settings serve` over real sockets
/// (`Tests/SecurityTests/settings_server_attacks.py`): forged cross-site
/// forms, DNS rebinding, framing, a NUL in an image name, a planted symlink,
/// a partial header, a flood of idle connections, and a server beyond
/// loopback without its token. Every attack must be refused and nothing written.
@Suite("settings serve under attack", .offThePool, .timeLimit(.minutes(10)))
struct ServerAttackTests {
    @Test func everyAttackIsRefused() throws {
        let bundle = repositoryRoot.appendingPathComponent("Examples/AppSettings/Settings.bundle").path
        let (status, text) = try runPythonScript("Tests/SecurityTests/settings_server_attacks.py", [productsDirectory.path, bundle])
        #expect(status == 0, "\(text)")
        #expect(text.contains("checks passed"), "\(text)")
    }
}

/// `settings serve` beyond loopback over HTTPS (`Tests/SecurityTests/settings_server_tls.py`):
/// plain HTTP there refused at start unless `--insecure`, a certificate a client verifies, a
/// `Secure` access cookie, an `http://` Origin refused by the HTTPS server, plain HTTP to the
/// HTTPS port unanswered, and unusable certificate and key files refused at start by name.
@Suite("settings serve over HTTPS", .offThePool, .timeLimit(.minutes(10)), .requires(.openssl))
struct ServerTLSTests {
    @Test func beyondLoopbackIsHTTPS() throws {
        let bundle = repositoryRoot.appendingPathComponent("Examples/AppSettings/Settings.bundle").path
        let (status, text) = try runPythonScript("Tests/SecurityTests/settings_server_tls.py", [productsDirectory.path, bundle, "/usr/bin/openssl"])
        #expect(status == 0, "\(text)")
        #expect(text.contains("checks passed"), "\(text)")
    }
}
