import ArgumentParser
@_spi(Engine) import OpenDefaults
import OpenDefaultsUbiquity
import PlatformIO
import PropertyList
import ValueGrammar
import Foundation

struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set a key: the `defaults write` value grammar (-string, -int, -float, -bool, -date, -data, -array …, -dict …, or a property-list text).")
    @OptionGroup var options: StoreOption
    @Argument(parsing: .captureForPassthrough, help: "The key, then its value.")
    var words: [String] = []

    func run() async throws {
        guard words.count >= 2 else { throw fail("usage: ubiquity set --store ID KEY <value>", code: 64) }
        let key = words[0]
        var rest = ArraySlice(words.dropFirst())
        let value: PropertyList
        do {
            switch try WriteValue.parse(&rest) {
            case .set(let v): value = v
            default: throw fail("ubiquity set takes a value (-array-add, -array-remove and -dict-add are `defaults` verbs)", code: 64)
            }
        } catch let error as WriteValueError {
            throw fail(error.text, code: 64)
        }
        let store = try openStore(options.store)
        do { try store.setOrThrow(value, forKey: key) } catch { throw fail("\(error); nothing was changed") }
        try await upload(store)
    }
}
