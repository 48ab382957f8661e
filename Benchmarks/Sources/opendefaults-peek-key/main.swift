// Reads one key of a domain without loading the domain (DomainStore.value(forKey:inDomain:)),
// as `defaults read D K` does, and prints it: `opendefaults-peek-key DOMAIN KEY`.
@_spi(Engine) import OpenDefaults

let args = CommandLine.arguments
let value = DomainStore.shared.value(forKey: args[2], inDomain: args[1])
print(value?.description ?? "(absent)")
