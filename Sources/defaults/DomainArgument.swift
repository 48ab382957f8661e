@_spi(Engine) import OpenDefaults
import PlatformIO
import PropertyList

/// A `<domain>` on the command line.
struct DomainArgument {
    enum Kind {
        /// A preferences domain (the global domain is `NSGlobalDomain`).
        case named(String)
        /// A property-list file given by path (`.plist` added when missing).
        case file(String)
    }

    let kind: Kind
    /// How messages name it.
    let displayName: String

    var isGlobal: Bool {
        if case .named(let n) = kind { return n == PreferencesLayout.globalDomainName }
        return false
    }

    /// Reads a domain argument, consuming `-app Name` when present; `--help`
    /// there prints the help (exit 0), another option is a usage error.
    static func parse(_ args: inout ArraySlice<String>, verb: String) -> DomainArgument {
        guard let first = args.popFirst() else { Messages.usage("\(verb) needs a domain (a name such as com.example.app, -g, -app Name, or a file's path)") }
        switch first {
        case "--help", "-h", "-help":
            StandardStream.output.write(helpText)
            Environment.exit(0)
        case "-g", "-globalDomain", "NSGlobalDomain", "Apple Global Domain", "kCFPreferencesAnyApplication":
            return DomainArgument(kind: .named(PreferencesLayout.globalDomainName), displayName: "Apple Global Domain")
        case "-app":
            guard let name = args.popFirst() else { Messages.usage("-app needs an application's name") }
            guard let id = ApplicationLookup.identifier(for: name) else {
                Messages.fail("Couldn't find an application named \"\(name)\"; defaults unchanged")
            }
            return DomainArgument(kind: .named(id), displayName: id)
        case _ where first.hasPrefix("-"):
            Messages.usage("unknown option \"\(first)\" where \(verb) expects a domain" + Messages.suggesting(first, among: ["-g", "-globalDomain", "-app"]))
        default:
            if first.hasPrefix("/") || first.hasPrefix("./") || first.hasPrefix("../") || first.hasPrefix("~/") {
                var path = first.hasPrefix("~/") ? (UserDirectories.home(in: nil) + first.dropFirst(1)) : first
                if !path.hasSuffix(".plist") { path += ".plist" }
                return DomainArgument(kind: .file(path), displayName: first)
            }
            return DomainArgument(kind: .named(first), displayName: first)
        }
    }

    /// The name used in "domain/default pair" messages (CFPreferences' spelling for the global domain).
    var pairName: String { isGlobal ? "kCFPreferencesAnyApplication" : displayName }
}

extension Substring {
    func trimmingCharacters() -> String {
        var s = self
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return String(s)
    }
}
