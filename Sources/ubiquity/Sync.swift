import ArgumentParser
@_spi(Engine) import OpenDefaults
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PlatformIO
import Foundation

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Upload and download now (exit 0 only when the server was reached).")
    @OptionGroup var options: StoreOption

    func run() async throws {
        guard UbiquityAccount.current() != nil else { throw fail("not logged in (`ubiquity login <server-URL>`, the token on standard input)") }
        let store = try openStore(options.store)
        do {
            guard try await within(.seconds(30), { try await store.synchronizeWithServer() }) != nil else {
                throw fail("the server did not answer in time")
            }
        } catch let error as UbiquityError {
            if case .unauthorized = error, let account = UbiquityAccount.current() {
                throw fail(notValid(error, server: account.server))
            }
            throw fail("\(error)")
        }
    }
}
