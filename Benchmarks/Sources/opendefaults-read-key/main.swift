// Reads one key of a domain with OpenDefaults and prints it: `opendefaults-read-key DOMAIN KEY`.
@_spi(Engine) import OpenDefaults

let args = CommandLine.arguments
let value = DomainStore.shared.domain(args[1]).value(forKey: args[2])
print(value?.description ?? "(absent)")
