/// What one `plutil` command line asks for.
///
/// plutil's grammar (single-dash options whose value may itself start with a
/// dash, and type flags such as `-integer` that take the next word as a
/// value) is read by hand rather than with swift-argument-parser.
struct Invocation {
    enum Verb: Equatable {
        case lint
        case help
        case print
        case convert(OutputFormat)
        case create(OutputFormat)
        case extract(keyPath: String, format: OutputFormat)
        case type(keyPath: String)
        case insert(keyPath: String, value: ValueArgument, append: Bool)
        case replace(keyPath: String, value: ValueArgument)
        case remove(keyPath: String)
    }

    enum OutputFormat: String, Equatable {
        case xml1, binary1, json, openstep, raw
    }

    var verb: Verb = .lint
    var files: [String] = []
    var silent = false
    var outputPath: String?
    var outputExtension: String?
    var readableJSON = false
    var noNewline = false
    var expect: String?

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static let typeNames = ["bool", "integer", "float", "string", "date", "data", "dictionary", "array"]

    init(arguments: [String]) throws(UsageError) {
        var args = arguments[...]
        var verbSet = false
        func next(_ option: String) throws(UsageError) -> String {
            guard let v = args.popFirst() else { throw UsageError(description: "missing argument for \(option)") }
            return v
        }
        func format(_ text: String, allowRaw: Bool = false) throws(UsageError) -> OutputFormat {
            guard let f = OutputFormat(rawValue: text), allowRaw || f != .raw else {
                throw UsageError(description: "unknown format '\(text)' (expected xml1, binary1, json, openstep\(allowRaw ? " or raw" : ""))")
            }
            return f
        }
        func setVerb(_ v: Verb) throws(UsageError) {
            if verbSet { throw UsageError(description: "only one command option may be given") }
            verb = v
            verbSet = true
        }
        while let arg = args.popFirst() {
            switch arg {
            case "--": files.append(contentsOf: args); args = []
            case "-help", "--help", "-h": try setVerb(.help)
            case "-lint": try setVerb(.lint)
            case "-p": try setVerb(.print)
            case "-convert": try setVerb(.convert(try format(try next(arg))))
            case "-create": try setVerb(.create(try format(try next(arg))))
            case "-extract":
                let path = try next(arg)
                try setVerb(.extract(keyPath: path, format: try format(try next(arg), allowRaw: true)))
            case "-type": try setVerb(.type(keyPath: try next(arg)))
            case "-remove": try setVerb(.remove(keyPath: try next(arg)))
            case "-insert", "-replace":
                let path = try next(arg)
                let flag = try next(arg)
                let value = try ValueArgument(flag: flag) { () throws(UsageError) in try next(flag) }
                if arg == "-insert" {
                    var append = false
                    if args.first == "-append" { args.removeFirst(); append = true }
                    try setVerb(.insert(keyPath: path, value: value, append: append))
                } else {
                    try setVerb(.replace(keyPath: path, value: value))
                }
            case "-append":
                guard case .insert(let p, let v, _) = verb else { throw UsageError(description: "-append goes with -insert") }
                verb = .insert(keyPath: p, value: v, append: true)
            case "-expect":
                let t = try next(arg)
                guard Self.typeNames.contains(t) else {
                    throw UsageError(description: "unknown type '\(t)' for -expect (expected one of \(Self.typeNames.joined(separator: ", ")))")
                }
                expect = t
            case "-s": silent = true
            case "-r": readableJSON = true
            case "-n": noNewline = true
            case "-o": outputPath = try next(arg)
            case "-e": outputExtension = try next(arg)
            default:
                if arg.hasPrefix("-"), arg != "-" { throw UsageError(description: "unrecognized option: \(arg)") }
                files.append(arg)
            }
        }
        if verb != .help, files.isEmpty { throw UsageError(description: "no files specified") }
    }
}
