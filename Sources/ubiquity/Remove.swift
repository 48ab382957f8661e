import ArgumentParser
@_spi(Engine) import OpenDefaults
import OpenDefaultsUbiquity
import PlatformIO
import Foundation

struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a key.")
    @OptionGroup var options: StoreOption
    @Argument(help: "The key.") var key: String

    func run() async throws {
        let store = try openStore(options.store)
        do { try store.setOrThrow(nil, forKey: key) } catch { throw fail("\(error)") }
        try await upload(store)
    }
}
