// Reads one key of a domain with Foundation's UserDefaults: `foundation-read-key DOMAIN KEY`.
import Foundation

let args = CommandLine.arguments
let value = UserDefaults(suiteName: args[1])?.object(forKey: args[2])
print(value.map { "\($0)" } ?? "(absent)")
