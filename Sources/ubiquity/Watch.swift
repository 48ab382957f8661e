import ArgumentParser
@_spi(Engine) import OpenDefaults
import OpenDefaultsUbiquity
import PlatformIO
import PropertyList
import Foundation

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print a line per external change: the reason, then the changed keys (flushed at once).")
    @OptionGroup var options: StoreOption

    func run() async throws {
        guard let account = UbiquityAccount.current() else {
            throw fail("not logged in: there is no server to watch (`ubiquity login <server-URL>`)")
        }
        let store = try openStore(options.store)
        let changes = store.externalChanges()
        store.startWatching()
        // Watching now (the login is followed, the server's stream asked for): a service manager,
        // or a script, learns it from NOTIFY_SOCKET instead of sleeping for it.
        ServiceManager.notify("READY=1")
        // Losing and regaining the server is said on standard error (the changes stay on standard output).
        let server = TerminalText.safe(account.server)
        let reachability = Task {
            var known: Bool? = nil
            while !Task.isCancelled {
                if let now = store.serverReachable, now != known {
                    if now == false { complain("lost \(server); retrying (changes made meanwhile arrive when it is back)") }
                    else if known == false { complain("\(server) is back") }
                    known = now
                }
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        defer { reachability.cancel() }
        for await change in changes {
            StandardStream.output.write(TerminalText.safe(change.description) + "\n")
        }
    }
}
