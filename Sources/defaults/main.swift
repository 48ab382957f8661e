// defaults: the macOS command-line interface to a user's defaults, on OpenDefaults.
//
// The grammar is macOS's (single-dash options, value flags that take the next
// words, a host option before the verb), read by hand: swift-argument-parser
// cannot express it. Every read and write goes through OpenDefaults, so a
// write is locked, merged, flushed durably and seen by observing applications.
@_spi(Engine) import OpenDefaults
import PlatformIO
import PropertyList
import ValueGrammar

// Keys, values and domain names are text: an argument that is not UTF-8 is refused (Swift would
// turn its bytes into U+FFFD, and a key, a value or a file name would silently differ).
if let problem = Environment.nonUTF8Argument() {
    Messages.usage(problem + "; domains, keys and values must be UTF-8")
}
var args = CommandLine.arguments.dropFirst()
var options = Options()

if args.first == "--version" || args.first == "-version" {
    StandardStream.output.print("defaults (OpenDefaults) \(OpenDefaultsVersion.string)")
    Environment.exit(0)
}
if args.first == "--help" || args.first == "-h" || args.first == "-help" {
    StandardStream.output.write(helpText)
    Environment.exit(0)
}

/// The verbs, as the help spells them (matched without regard to case).
let verbs = ["read", "read-type", "write", "rename", "delete", "remove", "import", "export", "domains", "find", "watch",
             "completion", "help", "printHostIdentifier"]
/// Says what is left over after a complete command.
@MainActor func noMore(_ verb: String) {
    guard let extra = args.first else { return }
    let hint = extra.hasPrefix("-") ? " (options go before the verb: defaults [-currentHost | -host NAME] [--format=FORMAT] VERB …)" : ""
    Messages.usage("unexpected argument \"\(extra)\" after \(verb)'s arguments" + hint)
}

// Options before the verb.
while let first = args.first, first.hasPrefix("-") {
    switch first {
    case "-currentHost":
        args.removeFirst()
        options.host = .current
    case "-host":
        args.removeFirst()
        guard let name = args.popFirst() else { Messages.usage("-host needs a host name") }
        options.host = .named(name)
    case "--full-data": args.removeFirst(); options.fullData = true
    case "--utf8": args.removeFirst(); options.utf8 = true
    case "--key-path": args.removeFirst(); options.keyPaths = true
    case _ where first.hasPrefix("--format="):
        args.removeFirst()
        let name = String(first.dropFirst(9))
        guard let format = Options.Format(rawValue: name) else { Messages.usage("--format expects plain, xml or json, got \"\(name)\"") }
        options.format = format
    default:
        Messages.usage("unknown option \"\(first)\"" + Messages.suggesting(first, among: ["-currentHost", "-host", "--full-data", "--utf8", "--key-path", "--format=", "--help", "--version"]))
    }
}

guard let verb = args.popFirst() else { Messages.usage("a verb is needed: " + verbs.joined(separator: ", ")) }
// `defaults VERB --help`: the verb's own help where macOS has no such verb, the whole help otherwise.
if let word = args.first, ["--help", "-h", "-help"].contains(word) {
    StandardStream.output.write(verbHelpTexts[verb.lowercased()] ?? helpText)
    Environment.exit(0)
}
let tool = Tool(options: options)

switch verb.lowercased() {
case "read":
    if args.isEmpty { tool.readAll() }
    let domain = DomainArgument.parse(&args, verb: "read")
    if let key = args.popFirst() {
        noMore("read")
        tool.read(domain, key: key)
    } else {
        tool.read(domain)
    }
case "read-type":
    let domain = DomainArgument.parse(&args, verb: "read-type")
    guard let key = args.popFirst() else { Messages.usage("read-type needs a key after the domain") }
    noMore("read-type")
    tool.readType(domain, key: key)
case "write":
    let domain = DomainArgument.parse(&args, verb: "write")
    guard let first = args.popFirst() else { Messages.usage("write needs a key and a value, or a whole domain as a property list, after the domain") }
    if args.isEmpty {
        tool.writeDomain(domain, representation: first)
    } else {
        let value: WriteValue
        do { value = try WriteValue.parse(&args) } catch {
            switch error {
            case .usage(let problem): Messages.usage(problem)
            case .message(let text): Messages.fail(text)
            }
        }
        tool.write(domain, key: first, value: value)
        tool.reportForced(domain, key: first)
    }
case "rename":
    let domain = DomainArgument.parse(&args, verb: "rename")
    guard let old = args.popFirst(), let new = args.popFirst() else { Messages.usage("rename needs the old key and the new key after the domain") }
    noMore("rename")
    tool.rename(domain, from: old, to: new)
case "delete", "remove":
    let domain = DomainArgument.parse(&args, verb: verb.lowercased())
    if let key = args.popFirst() {
        noMore(verb.lowercased())
        tool.delete(domain, key: key)
    } else {
        tool.delete(domain)
    }
case "import":
    let domain = DomainArgument.parse(&args, verb: "import")
    guard let path = args.popFirst() else { Messages.fail("\nNeed a path to read from") }
    noMore("import")
    tool.importDomain(domain, from: path)
case "export":
    let domain = DomainArgument.parse(&args, verb: "export")
    guard let path = args.popFirst() else { Messages.fail("\nNeed a path to write to") }
    noMore("export")
    tool.exportDomain(domain, to: path)
case "domains":
    tool.domains()
case "find":
    guard let word = args.popFirst() else { Messages.usage("find needs a word to look for") }
    noMore("find")
    tool.find(word)
case "watch":
    let domain = DomainArgument.parse(&args, verb: "watch")
    let key = args.popFirst()
    noMore("watch")
    tool.watch(domain, key: key)
case "completion":
    guard let shell = args.popFirst() else { Messages.usage("completion needs a shell: bash, zsh or fish") }
    tool.completion(shell)
case "__keys":
    guard !args.isEmpty else { Environment.exit(0) }
    tool.listKeys(DomainArgument.parse(&args, verb: "__keys"))
case "help":
    if args.first == "--extensions" { StandardStream.output.write(extensionsHelpText) } else { StandardStream.output.write(helpText) }
    Environment.exit(0)
case "printhostidentifier":
    StandardStream.output.print("Current host identifier: \(DomainStore.shared.layout.hostIdentifier)")
    Environment.exit(0)
default:
    Messages.usage("unknown verb \"\(verb)\"" + Messages.suggesting(verb, among: verbs))
}
Environment.exit(0)
