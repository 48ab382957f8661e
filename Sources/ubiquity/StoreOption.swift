import ArgumentParser
@_spi(Engine) import OpenDefaults
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PlatformIO
import PropertyList
import ValueGrammar
import Foundation

struct StoreOption: ParsableArguments {
    @Option(name: .customLong("store"), help: "The store's identifier (e.g. com.example.notes).")
    var store: String
}
