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

var args = CommandLine.arguments.dropFirst()
var options = Options()

if args.first == "--version" || args.first == "-version" {
    StandardStream.output.print("defaults (OpenDefaults) \(OpenDefaultsVersion.string)")
    Environment.exit(0)
}

// Options before the verb.
while let first = args.first, first.hasPrefix("-") {
    switch first {
    case "-currentHost":
        args.removeFirst()
        options.host = .current
    case "-host":
        args.removeFirst()
        guard let name = args.popFirst() else { Messages.usage() }
        options.host = .named(name)
    case "--full-data": args.removeFirst(); options.fullData = true
    case "--utf8": args.removeFirst(); options.utf8 = true
    case "--key-path": args.removeFirst(); options.keyPaths = true
    case _ where first.hasPrefix("--format="):
        args.removeFirst()
        guard let format = Options.Format(rawValue: String(first.dropFirst(9))) else { Messages.usage() }
        options.format = format
    default:
        Messages.usage()
    }
}

guard let verb = args.popFirst() else { Messages.usage() }
let tool = Tool(options: options)

switch verb.lowercased() {
case "read":
    if args.isEmpty { tool.readAll() }
    guard let domain = DomainArgument.parse(&args) else { Messages.usage() }
    if let key = args.popFirst() {
        guard args.isEmpty else { Messages.usage() }
        tool.read(domain, key: key)
    } else {
        tool.read(domain)
    }
case "read-type":
    guard let domain = DomainArgument.parse(&args), let key = args.popFirst(), args.isEmpty else { Messages.usage() }
    tool.readType(domain, key: key)
case "write":
    guard let domain = DomainArgument.parse(&args), let first = args.popFirst() else { Messages.usage() }
    if args.isEmpty {
        tool.writeDomain(domain, representation: first)
    } else {
        let value: WriteValue
        do { value = try WriteValue.parse(&args) } catch {
            switch error {
            case .usage: Messages.usage()
            case .message(let text): Messages.fail(text)
            }
        }
        tool.write(domain, key: first, value: value)
    }
case "rename":
    guard let domain = DomainArgument.parse(&args), let old = args.popFirst(), let new = args.popFirst(), args.isEmpty else {
        Messages.usage()
    }
    tool.rename(domain, from: old, to: new)
case "delete", "remove":
    guard let domain = DomainArgument.parse(&args) else { Messages.usage() }
    if let key = args.popFirst() {
        guard args.isEmpty else { Messages.usage() }
        tool.delete(domain, key: key)
    } else {
        tool.delete(domain)
    }
case "import":
    guard let domain = DomainArgument.parse(&args) else { Messages.usage() }
    guard let path = args.popFirst() else { Messages.fail("\nNeed a path to read from") }
    tool.importDomain(domain, from: path)
case "export":
    guard let domain = DomainArgument.parse(&args) else { Messages.usage() }
    guard let path = args.popFirst() else { Messages.fail("\nNeed a path to write to") }
    tool.exportDomain(domain, to: path)
case "domains":
    tool.domains()
case "find":
    guard let word = args.popFirst(), args.isEmpty else { Messages.usage() }
    tool.find(word)
case "watch":
    guard let domain = DomainArgument.parse(&args) else { Messages.usage() }
    tool.watch(domain, key: args.popFirst())
case "completion":
    guard let shell = args.popFirst() else { Messages.usage() }
    tool.completion(shell)
case "__keys":
    guard let domain = DomainArgument.parse(&args) else { Environment.exit(0) }
    tool.listKeys(domain)
case "help":
    if args.first == "--extensions" { StandardStream.output.write(extensionsHelpText) } else { StandardStream.output.write(helpText) }
    Environment.exit(0)
case "printhostidentifier":
    StandardStream.output.print("Current host identifier: \(DomainStore.shared.layout.hostIdentifier)")
    Environment.exit(0)
default:
    Messages.usage()
}
Environment.exit(0)
