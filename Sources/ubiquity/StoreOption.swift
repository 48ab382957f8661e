import ArgumentParser
import Foundation

struct StoreOption: ParsableArguments {
    @Option(name: .customLong("store"), help: "The store's identifier (e.g. com.example.notes).")
    var store: String
}
