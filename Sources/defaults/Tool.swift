import ConfigurationProfiles
@_spi(Engine) import OpenDefaults
import PlatformIO
import PropertyList
import ValueGrammar

/// The verbs, over OpenDefaults' persistent domains.
struct Tool {
    let options: Options
    let store: DomainStore

    init(options: Options) {
        self.options = options
        switch options.host {
        case .named(let name):
            var layout = PreferencesLayout.current
            layout.hostIdentifier = name
            store = DomainStore(layout: layout)
        default:
            store = .shared
        }
        Messages.collectReports(of: store)
    }

    var scope: PreferenceScope {
        if case .any = options.host { return .currentUser }
        return .currentUserCurrentHost
    }

    func domain(_ d: DomainArgument) -> PersistentDomain {
        switch d.kind {
        case .named(let name):
            guard PreferencesLayout.isValidDomainName(name) else { Messages.fail("\nDomain \(name) is not a valid domain name") }
            return store.domain(name, scope: scope)
        case .file(let path): return store.domain(atPath: path)
        }
    }

    // MARK: Output

    func render(_ value: PropertyList) -> [UInt8] {
        switch options.format {
        case .plain:
            let text = value.description(options: .init(escapeNonASCII: !options.utf8, fullData: options.fullData))
            return Array((text + "\n").utf8)
        case .xml:
            return (try? value.encoded(as: .xml)) ?? []
        case .json:
            do { return try value.encoded(as: .json, options: .init(prettyJSON: true)) } catch {
                Messages.fail("\nThe value cannot be printed as JSON: \(error.reason)")
            }
        }
    }

    func keyPath(_ key: String) -> PropertyList.KeyPath {
        options.keyPaths ? PropertyList.KeyPath(key) : PropertyList.KeyPath(components: [key])
    }

    /// The value at a key (or key path) of a domain's entries.
    func lookup(_ entries: [LiteralString: PropertyList], _ key: String) -> PropertyList? {
        PropertyList.dictionary(entries)[keyPath: keyPath(key)]
    }

    /// The value at a key (or key path) of a domain, read without loading
    /// the domain: only the first component is looked up in the file.
    func peek(_ d: DomainArgument, _ key: String) -> PropertyList? {
        let path = keyPath(key)
        guard let first = path.components.first else { return nil }
        let top: PropertyList?
        switch d.kind {
        case .named(let name):
            guard PreferencesLayout.isValidDomainName(name) else { Messages.fail("\nDomain \(name) is not a valid domain name") }
            // A forced value is the one in force (the user's own stays stored underneath).
            top = store.forcedValues(name)[first] ?? store.value(forKey: first, inDomain: name, scope: scope)
        case .file(let file):
            top = store.value(forKey: first, inDomainAtPath: file)
        }
        guard let top else { return nil }
        return path.components.count == 1 ? top : top[keyPath: PropertyList.KeyPath(components: Array(path.components.dropFirst()))]
    }

    func synchronize(_ d: DomainArgument, _ domain: PersistentDomain) {
        do { try domain.synchronize() } catch {
            Messages.failWriting(d.displayName, error)
        }
    }

    // MARK: read

    func readAll() -> Never {
        var all: [LiteralString: PropertyList] = [:]
        for name in store.persistentDomainNames(scope: scope) {
            let entries = store.domain(name, scope: scope).entries
            if entries.isEmpty { continue }
            all[name == PreferencesLayout.globalDomainName ? "Apple Global Domain" : name] = .dictionary(entries)
        }
        StandardStream.output.write(render(.dictionary(all)))
        Environment.exit(0)
    }

    func read(_ d: DomainArgument) {
        var entries = domain(d).entries
        // What is in force: an administrator's forced values over the user's own.
        if case .named(let name) = d.kind { entries.merge(store.forcedValues(name)) { _, forced in forced } }
        if entries.isEmpty { Messages.fail("\nDomain \(d.displayName) does not exist") }
        StandardStream.output.write(render(.dictionary(entries)))
    }

    func read(_ d: DomainArgument, key: String) {
        guard let value = peek(d, key) else {
            Messages.fail("\nThe domain/default pair of (\(d.pairName), \(key)) does not exist")
        }
        StandardStream.output.write(render(value))
    }

    func readType(_ d: DomainArgument, key: String) {
        guard let value = peek(d, key) else {
            Messages.fail("\nThe domain/default pair of (\(d.pairName), \(key)) does not exist")
        }
        let name: String
        switch value.kind {
        case .string: name = "string"
        case .data: name = "data"
        case .integer: name = "integer"
        case .real: name = "float"
        case .boolean: name = "boolean"
        case .date: name = "date"
        case .array: name = "array"
        case .dictionary: name = "dictionary"
        case .uid: name = "uid"
        }
        StandardStream.output.print("Type is \(name)")
    }

    // MARK: write

    func writeDomain(_ d: DomainArgument, representation: String) {
        guard case .dictionary(let entries)? = try? PropertyList(decoding: Array(representation.utf8)) else {
            Messages.fail("\nRep argument is not a dictionary\nDefaults have not been changed.")
        }
        let target = domain(d)
        target.replaceAll(with: entries)
        synchronize(d, target)
    }

    func write(_ d: DomainArgument, key: String, value: WriteValue) {
        let target = domain(d)
        let path = keyPath(key)
        // Read, modify and write under the domain's lock: concurrent
        // `-array-add`s and `-dict-add`s from other processes are all kept.
        edit(d, target) { entries in
            let current = PropertyList.dictionary(entries)[keyPath: path]
            let new: PropertyList
            switch value {
            case .set(let v): new = v
            case .arrayAdd(let items), .arrayAddUnique(let items), .arrayRemove(let items):
                var array: [PropertyList] = []
                if let current {
                    guard case .array(let a) = current else {
                        throw ToolFailure("\nValue for key \(key) is not an array; cannot append.  Leaving defaults unchanged.")
                    }
                    array = a
                }
                switch value {
                case .arrayAddUnique: for item in items where !array.contains(item) { array.append(item) }
                case .arrayRemove: array.removeAll { items.contains($0) }
                default: array += items
                }
                new = .array(array)
            case .dictAdd(let additions):
                var dict: [LiteralString: PropertyList] = [:]
                if let current {
                    guard case .dictionary(let existing) = current else {
                        throw ToolFailure("\nValue for key \(key) is not a dictionary; cannot append.  Leaving defaults unchanged.")
                    }
                    dict = existing
                }
                dict.merge(additions) { _, new in new }
                new = .dictionary(dict)
            }
            if path.components.count == 1 {
                entries[path.components[0]] = new
            } else {
                let root = path.components[0]
                var rootValue = entries[root] ?? .dictionary([:])
                do {
                    try Self.set(new, at: PropertyList.KeyPath(components: Array(path.components.dropFirst())), in: &rootValue)
                } catch let error as PropertyList.KeyPathError {
                    throw ToolFailure("\nCannot write key path \(key): \(error.reason); leaving defaults unchanged.")
                }
                entries[root] = rootValue
            }
        }
    }

    /// After a write to a key an administrator forces: says so, and by what.
    /// The user's own value is stored (as macOS stores it) but not in force.
    func reportForced(_ d: DomainArgument, key: String) {
        guard case .named(let name) = d.kind, let first = keyPath(key).components.first,
              store.forcedValues(name)[first] != nil else { return }
        let layout = store.layout
        let by: String
        if let profile = (try? ProfileStore(layout: layout).index())?.forcingProfile(domain: name, key: first, user: layout.userName) {
            by = "the configuration profile \"\(profile.displayName)\" (\(profile.identifier))"
        } else {
            by = "your administrator (a managed-preferences file)"
        }
        // The profile's name and identifier are an administrator's text (or an attacker's): escaped.
        StandardStream.error.write(TerminalText.safe("defaults: \(first) in \(d.displayName) is managed by \(by): the value in force is unchanged. "
            + "Your own value was stored and applies when the key is no longer managed.", keepingNewlines: false) + "\n")
    }

    /// A refusal from inside an edit: nothing is written, the message is printed.
    struct ToolFailure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// Runs a read-modify-write edit of the domain atomically (under its
    /// lock, see `PersistentDomain.update`), then reloads what others wrote.
    func edit(_ d: DomainArgument, _ target: PersistentDomain, _ body: (inout [LiteralString: PropertyList]) throws -> Void) {
        do {
            try target.update(body)
        } catch let failure as ToolFailure {
            Messages.fail(failure.message)
        } catch {
            Messages.failWriting(d.displayName, error)
        }
        synchronize(d, target)
    }

    /// Sets a value at a key path, creating missing dictionaries on the way.
    static func set(_ value: PropertyList, at path: PropertyList.KeyPath, in root: inout PropertyList) throws(PropertyList.KeyPathError) {
        var prefix: [String] = []
        for component in path.components.dropLast() {
            prefix.append(component)
            if root[keyPath: PropertyList.KeyPath(components: prefix)] == nil {
                try root.set(.dictionary([:]), at: PropertyList.KeyPath(components: prefix), mode: .replace)
            }
        }
        try root.set(value, at: path, mode: .replace)
    }

    func rename(_ d: DomainArgument, from old: String, to new: String) {
        let target = domain(d)
        edit(d, target) { entries in
            guard let value = entries[old] else {
                throw ToolFailure("\nKey \(old) does not exist in domain \(d.displayName); leaving defaults unchanged")
            }
            entries[old] = nil
            entries[new] = value
        }
    }

    // MARK: delete

    func delete(_ d: DomainArgument) {
        let target = domain(d)
        if target.isEmpty, FileSignature(path: target.path) == nil {
            Messages.fail("\nDomain (\(d.displayName)) not found.\nDefaults have not been changed.")
        }
        target.replaceAll(with: nil)
        synchronize(d, target)
    }

    func delete(_ d: DomainArgument, key: String) {
        let target = domain(d)
        let path = keyPath(key)
        edit(d, target) { entries in
            guard PropertyList.dictionary(entries)[keyPath: path] != nil else {
                throw ToolFailure("\nDomain (\(d.displayName)) not found.\nDefaults have not been changed.")
            }
            if path.components.count == 1 {
                entries[path.components[0]] = nil
            } else {
                var root = entries[path.components[0]]!
                do { try root.remove(at: PropertyList.KeyPath(components: Array(path.components.dropFirst()))) } catch {
                    throw ToolFailure("\nDomain (\(d.displayName)) not found.\nDefaults have not been changed.")
                }
                entries[path.components[0]] = root
            }
        }
    }

    // MARK: import / export

    func importDomain(_ d: DomainArgument, from path: String) {
        let bytes: [UInt8]
        do { bytes = try FileIO.read(path) } catch {
            // macOS says only "Could not read data from PATH"; the reason is added.
            Messages.fail("\nCould not read data from \(path): \(error.reason.lowercased())")
        }
        let value: PropertyList
        do { value = try PropertyList(decoding: bytes) } catch {
            Messages.fail("\nCould not parse property list from \(path) due to \(error)")
        }
        guard case .dictionary(let entries) = value else {
            Messages.fail("\nProperty list \(value.description) was not a dictionary\nDefaults have not been changed.")
        }
        let target = domain(d)
        edit(d, target) { current in current.merge(entries) { _, imported in imported } }
    }

    func exportDomain(_ d: DomainArgument, to path: String) {
        let value = PropertyList.dictionary(domain(d).entries)
        if path == "-" {
            StandardStream.output.write((try? value.encoded(as: .xml)) ?? [])
            return
        }
        do { try FileIO.write(try! value.encoded(as: .binary), to: path, mode: 0o644) } catch {
            Messages.fail("\nCould not export domain \(d.displayName) to \(path) due to \(error.reason)")
        }
    }

    // MARK: domains / find

    func domains() {
        let names = store.persistentDomainNames(scope: scope).filter { $0 != PreferencesLayout.globalDomainName }
        StandardStream.output.print(names.map { TerminalText.safe($0) }.joined(separator: ", "))
    }

    func find(_ word: String) {
        let needle = word.lowercased()
        func contains(_ v: PropertyList) -> Bool {
            switch v {
            case .string(let s): return s.lowercased().contains(needle)
            case .array(let a): return a.contains(where: contains)
            case .dictionary(let d): return d.contains { $0.key.string.lowercased().contains(needle) || contains($0.value) }
            default: return false
            }
        }
        var found = false
        for name in store.persistentDomainNames(scope: scope) {
            let entries = store.domain(name, scope: scope).entries
            let shown = name == PreferencesLayout.globalDomainName ? "Apple Global Domain" : name
            let matches = shown.lowercased().contains(needle)
                ? entries
                : entries.filter { $0.key.string.lowercased().contains(needle) || contains($0.value) }
            guard !matches.isEmpty else { continue }
            found = true
            let body = String(decoding: render(.dictionary(matches)), as: UTF8.self)
            StandardStream.output.write("Found \(matches.count) keys in domain '\(TerminalText.safe(shown))': " + body)
        }
        if !found { Messages.log("\nNo domain, key, nor value containing '\(word)'") }
    }

    func listKeys(_ d: DomainArgument) {
        // One key a line: a key's control characters (a newline would forge another) escaped.
        for key in domain(d).entries.keys.sorted() { StandardStream.output.print(TerminalText.safe(key.string)) }
    }

    // MARK: watch

    func watch(_ d: DomainArgument, key: String?) -> Never {
        // Interruptible even when started with these signals blocked.
        Environment.unblockInterrupts()
        let target = domain(d)
        let token = store.observe { change in
            guard change.domain == target.name, change.scope == target.scope else { return }
            for name in change.changes.keys.sorted() where key.map({ LiteralString($0) == name }) ?? true {
                let new = change.changes[name]!.new
                let text = new.map { String(decoding: render($0), as: UTF8.self) } ?? "(deleted)\n"
                StandardStream.output.write("\(TerminalText.safe(name.string)) = " + text)
            }
        }
        while true { withExtendedLifetime(token) { Environment.sleep(seconds: 3600) } }
    }

    // MARK: completion

    func completion(_ shell: String) {
        let verbs = "read read-type write rename delete remove import export domains find watch completion help printHostIdentifier"
        let options = "-currentHost -host --full-data --utf8 --key-path --format=plain --format=xml --format=json"
        let flags = "-string -data -int -integer -float -bool -boolean -date -array -array-add -array-add-unique -array-remove -dict -dict-add"
        switch shell {
        case "bash":
            StandardStream.output.write("""
                _defaults() {
                    local cur=${COMP_WORDS[COMP_CWORD]} i=1
                    while [[ ${COMP_WORDS[i]} == -currentHost || ${COMP_WORDS[i]} == --* ]]; do ((i++)); done
                    [[ ${COMP_WORDS[i]} == -host ]] && ((i+=2))
                    local pos=$((COMP_CWORD - i)) verb=${COMP_WORDS[i],,}
                    if ((pos == 0)); then COMPREPLY=($(compgen -W "\(verbs) \(options)" -- "$cur"))
                    elif [[ $verb == completion ]]; then ((pos == 1)) && COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur"))
                    elif ((pos == 1)); then COMPREPLY=($(compgen -W "$(defaults domains 2>/dev/null | sed 's/, /\\n/g') -g NSGlobalDomain -app" -- "$cur"))
                    elif ((pos == 2)); then COMPREPLY=($(compgen -W "$(defaults __keys "${COMP_WORDS[i+1]}" 2>/dev/null)" -- "$cur"))
                    elif [[ $verb == write && ( $pos == 3 || $cur == -* ) ]]; then COMPREPLY=($(compgen -W "\(flags)" -- "$cur"))
                    fi
                }
                complete -F _defaults defaults

                """)
        case "zsh":
            StandardStream.output.write("""
                #compdef defaults
                _defaults() {
                    local -a verbs domains keys
                    verbs=(\(verbs))
                    case $CURRENT in
                        2) compadd -- $verbs \(options) ;;
                        3) if [[ ${words[2]:l} == completion ]]; then compadd -- bash zsh fish
                           else domains=(${(s:, :)"$(defaults domains 2>/dev/null)"}); compadd -- $domains -g NSGlobalDomain -app; fi ;;
                        4) keys=(${(f)"$(defaults __keys $words[3] 2>/dev/null)"}); compadd -- $keys ;;
                        *) [[ ${words[2]:l} == write ]] && compadd -- \(flags) ;;
                    esac
                }
                compdef _defaults defaults

                """)
        case "fish":
            StandardStream.output.write("""
                complete -c defaults -f
                complete -c defaults -n '__fish_is_nth_token 1' -a '\(verbs) \(options)'
                complete -c defaults -n '__fish_is_nth_token 2; and __fish_seen_subcommand_from completion' -a 'bash zsh fish'
                complete -c defaults -n '__fish_is_nth_token 2; and not __fish_seen_subcommand_from completion' -a '(defaults domains 2>/dev/null | string split ", ") -g NSGlobalDomain -app'
                complete -c defaults -n '__fish_is_nth_token 3' -a '(defaults __keys (commandline -opc)[3] 2>/dev/null)'
                complete -c defaults -n 'not __fish_is_nth_token 1; and not __fish_is_nth_token 2; and not __fish_is_nth_token 3; and __fish_seen_subcommand_from write' -a '\(flags)'

                """)
        default:
            Messages.fail("\nUnknown shell \(shell) (expected bash, zsh or fish)")
        }
    }
}
