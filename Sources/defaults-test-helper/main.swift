// A separate process for OpenDefaults' multi-process tests. It uses the
// store for its environment (XDG_CONFIG_HOME, OPENDEFAULTS_SYSTEM_ROOT).
//
//   write DOMAIN PREFIX COUNT        set PREFIX0…PREFIX<COUNT-1> to their index; exit (flushed at exit)
//   write-sync DOMAIN KEY VALUE      set one string and synchronize
//   versions DOMAIN KEYS             forever: set every key to version v, synchronize, print "v\n"
//   announce-versions DOMAIN KEYS    as versions, but print "W v\n" before each flush starts
//   observe DOMAIN KEY               print "<value>\n" each time KEY changes (any process)
//   get DOMAIN KEY                   print the value's description
//   set-and-die DOMAIN KEY VALUE SIG set one string, then die at once by signal SIG (9 or 15)
//   burst DOMAIN COUNT               set k0…k<COUNT-1> to their index, as fast as possible, then sleep
//   batch DOMAIN COUNT               set k0…k<COUNT-1> in one several-key set ("ready", "done"), then sleep
//   acked DOMAIN PREFIX              forever: set PREFIX<i> = i, then print "i\n" once set returned
//   set-plist DOMAIN FILE [SIG]      set each key of FILE's dictionary, one set per key; exit (flushed),
//                                    or print "set\n" and die by signal SIG (the journal keeps them)
//   dump DOMAIN FILE                 write the domain's entries to FILE as a binary property list
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
@_spi(Engine) import OpenDefaults
import PlatformIO
import PropertyList

let args = Array(CommandLine.arguments.dropFirst())
// A test runner may ignore SIGTERM, and an ignored signal is inherited:
// the crash tests need its default action (death, no exit handler).
signal(SIGTERM, SIG_DFL)
var unblocked = sigset_t()
sigemptyset(&unblocked)
sigaddset(&unblocked, SIGTERM)
pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
let store = DomainStore.shared

func usage() -> Never {
    StandardStream.error.print("usage: defaults-test-helper write|write-sync|versions|announce-versions|observe|get …")
    exit(2)
}

guard args.count >= 2 else { usage() }
// `layout D`: the layout this environment gives (the login name, D's managed paths) and the
// keys forced in D, for tests that vary $USER without changing their own process's environment.
if args[0] == "layout" {
    let layout = PreferencesLayout.current
    print("user \(layout.userName)")
    for path in layout.managedPaths(for: args[1]) { print("managed \(path)") }
    print("forced \(store.forcedValues(args[1]).keys.map(\.string).sorted().joined(separator: ","))")
    exit(0)
}
let domain = store.domain(args[1], scope: .currentUser)

switch args[0] {
case "write":
    guard args.count == 4, let count = Int(args[3]) else { usage() }
    for i in 0..<count { domain.set(PropertyList(i), forKey: "\(args[2])\(i)") }
case "write-sync":
    guard args.count == 4 else { usage() }
    domain.set(.string(args[3]), forKey: args[2])
    do { try domain.synchronize() } catch {
        StandardStream.error.print("\(error)")
        exit(1)
    }
case "versions", "announce-versions":
    guard args.count == 3, let keys = Int(args[2]) else { usage() }
    let announce = args[0] == "announce-versions"
    var version = Int(domain.value(forKey: "version")?.intValue ?? 0)
    while true {
        version += 1
        var values: [LiteralString: PropertyList?] = ["version": PropertyList(version)]
        for k in 0..<keys { values["key\(k)"] = PropertyList(version) }
        domain.set(values)
        if announce { StandardStream.output.write("W \(version)\n") }
        do { try domain.synchronize() } catch {
            StandardStream.error.print("\(error)")
            exit(1)
        }
        StandardStream.output.write("\(version)\n")
    }
case "observe":
    guard args.count == 3 else { usage() }
    let key = args[2]
    let token = store.observe { change in
        guard change.domain == args[1], let values = change.changes[key] else { return }
        StandardStream.output.write((values.new?.description ?? "(removed)") + "\n")
    }
    StandardStream.output.write("ready\n")
    while true { _ = withExtendedLifetime(token) { sleep(1) } }
case "set-and-die":
    guard args.count == 5, let sig = Int32(args[4]) else { usage() }
    domain.set(.string(args[3]), forKey: args[2])
    // The default action of the signal: no exit handler, no flush.
    signal(sig, SIG_DFL)
    kill(getpid(), sig)
    sleep(10)
    exit(3)
case "burst":
    guard args.count == 3, let count = Int(args[2]) else { usage() }
    // "ready" once the first set has returned: at least that one must survive a kill.
    domain.set(PropertyList(0), forKey: "k0")
    StandardStream.output.write("ready\n")
    for i in 1..<max(count, 1) { domain.set(PropertyList(i), forKey: "k\(i)") }
    StandardStream.output.write("done\n")
    while true { sleep(1) }
case "batch":
    guard args.count == 3, let count = Int(args[2]) else { usage() }
    var values: [LiteralString: PropertyList?] = [:]
    for i in 0..<count { values["k\(i)"] = PropertyList(i) }
    StandardStream.output.write("ready\n")
    domain.set(values)
    StandardStream.output.write("done\n")
    while true { sleep(1) }
case "acked":
    guard args.count == 3 else { usage() }
    var i = 0
    while true {
        domain.set(PropertyList(i), forKey: "\(args[2])\(i)")
        StandardStream.output.write("\(i)\n")
        i += 1
    }
case "set-plist":
    guard args.count == 3 || args.count == 4, let bytes = try? FileIO.read(args[2]),
          case .dictionary(let entries)? = try? PropertyList(decoding: bytes) else { usage() }
    for (key, value) in entries { domain.set(value, forKey: key.string) }
    if args.count == 4, let sig = Int32(args[3]) {
        StandardStream.output.write("set\n")
        raise(sig)
    }
case "dump":
    guard args.count == 3, let bytes = try? PropertyList.dictionary(domain.entries).encoded(as: .binary) else { usage() }
    do { try FileIO.write(bytes, to: args[2]) } catch {
        StandardStream.error.print("\(error)")
        exit(1)
    }
case "get":
    guard args.count == 3 else { usage() }
    StandardStream.output.write((domain.value(forKey: args[2])?.description ?? "(absent)") + "\n")
default:
    usage()
}
