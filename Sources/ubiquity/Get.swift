import ArgumentParser
@_spi(Engine) import OpenDefaults
import OpenDefaultsUbiquity
import PropertyList
import Foundation

struct Get: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Print a key's value as `defaults read D K` does (exit 1 when absent).")
    @OptionGroup var options: StoreOption
    @Argument(help: "The key.") var key: String

    func run() async throws {
        let store = try openStore(options.store)
        await refresh(store)
        guard let value = store.propertyList(forKey: key) else {
            throw fail("the key \"\(key)\" does not exist in store \(options.store)")
        }
        show(value)
    }
}
