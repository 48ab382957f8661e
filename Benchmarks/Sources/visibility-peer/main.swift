// Prints a line each time KEY of DOMAIN changes (written by another process):
// `visibility-peer DOMAIN KEY`. Prints "ready" first.
@_spi(Engine) import OpenDefaults
#if canImport(Glibc)
import Glibc
#endif

let args = CommandLine.arguments
let store = DomainStore.shared
_ = store.domain(args[1])
let token = store.observe { change in
    if change.domain == args[1], let v = change.changes[args[2]] {
        print(v.new?.description ?? "-"); fflush(nil)
    }
}
print("ready"); fflush(nil)
while true { withExtendedLifetime(token) { sleep(1) } }
