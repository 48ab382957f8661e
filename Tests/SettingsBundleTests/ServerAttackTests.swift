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
