import ArgumentParser
@_spi(Engine) import OpenDefaults
import OpenDefaultsUbiquity
import PropertyList
import Foundation

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Print every key and value as `defaults read D` does.")
    @OptionGroup var options: StoreOption

    func run() async throws {
        let store = try openStore(options.store)
        await refresh(store)
        show(.dictionary(store.propertyLists))
    }
}
