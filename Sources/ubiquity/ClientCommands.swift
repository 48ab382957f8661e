import ArgumentParser
@_spi(Engine) import OpenDefaults
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PlatformIO
import PropertyList
import ValueGrammar
import Foundation

/// Fails with `message` on standard error and exit status `code`.
func fail(_ message: String, code: Int32 = 1) -> ExitCode {
    StandardStream.error.write("ubiquity: \(message)\n")
    return ExitCode(code)
}

/// The store named on the command line, over the login's account and HTTP.
func openStore(_ id: String, watches: Bool = false) throws -> UbiquitousKeyValueStore {
    guard UbiquitousKeyValueStore.isValidStoreIdentifier(id) else {
        throw fail("invalid store identifier \"\(id)\": expected 1 to 255 letters, digits, '.', '-' or '_', not starting with '.'")
    }
    return UbiquitousKeyValueStore(storeIdentifier: id, configuration: .init(
        transport: { HTTPUbiquityTransport(account: $0) }, watches: watches))
}

/// Runs `body`, giving up after `limit`: nil then.
func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask { try await Task.sleep(for: limit); return nil }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}

/// Prints a value as `defaults read` prints a top-level value, with text as
/// UTF-8 (not macOS's octal escapes) and control characters escaped: values
/// come from a server and other machines.
func show(_ value: PropertyList) {
    let text = value.description(options: .init(escapeNonASCII: false, fullData: false))
    StandardStream.output.write(TerminalText.safe(text, keepingNewlines: true) + "\n")
}

struct StoreOption: ParsableArguments {
    @Option(name: .customLong("store"), help: "The store's identifier (e.g. com.example.notes).")
    var store: String
}

/// Brings the local copy up to date when the server answers within two seconds;
/// reads stay local otherwise, and standard error says why.
func refresh(_ store: UbiquitousKeyValueStore) async {
    guard let account = UbiquityAccount.current() else {
        StandardStream.error.write("ubiquity: not logged in (`ubiquity login <server-URL>`): this machine's copy only\n")
        return
    }
    do {
        if try await within(.seconds(2), { try await store.synchronizeWithServer() }) == nil {
            StandardStream.error.write("ubiquity: \(TerminalText.safe(account.server)) did not answer within 2 seconds: this machine's copy\n")
        }
    } catch let error as UbiquityError {
        StandardStream.error.write("ubiquity: \(TerminalText.safe("\(error)")): this machine's copy\n")
    } catch {}
}

/// Uploads what a command wrote: exit 0 when uploaded or kept for later, 1 when refused.
/// A server slow to answer is said at once (the write is kept), not after the wait.
func upload(_ store: UbiquitousKeyValueStore) async throws {
    _ = store.synchronize()
    guard let account = UbiquityAccount.current() else {
        StandardStream.error.write("ubiquity: not logged in: the write is kept on this machine (log in with `ubiquity login <server-URL>`)\n")
        return
    }
    let server = TerminalText.safe(account.server)
    let attempt = Task { try await store.synchronizeWithServer() }
    let notice = Task {
        try await Task.sleep(for: .milliseconds(300))
        StandardStream.error.write("ubiquity: waiting for \(server): the write is kept on this machine meanwhile\n")
    }
    defer { notice.cancel() }
    do {
        let done: Void? = try await within(.seconds(10)) { try await attempt.value }
        if done == nil {
            attempt.cancel()
            StandardStream.error.write("ubiquity: \(server) did not answer in time: the write is kept on this machine and uploaded by the next `ubiquity sync`\n")
        }
    } catch let error as UbiquityError {
        notice.cancel()
        switch error {
        case .refusedByServer: throw fail("\(error)")
        case .unauthorized: throw fail("\(error); the write is kept on this machine")
        default:
            StandardStream.error.write("ubiquity: \(TerminalText.safe("\(error)"))\nubiquity: the write is kept on this machine and uploaded by the next `ubiquity sync`\n")
        }
    }
    _ = store.synchronize()
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Log this user in to a sync server's account (the token is kept with mode 0600).")

    @Argument(help: "The server's URL, e.g. http://127.0.0.1:8470.")
    var server: String

    @Argument(help: ArgumentHelp(
        "The account's token; without it (or with -) the token is read from standard input.",
        discussion: "A token on the command line can be read by every local user (/proc/PID/cmdline): prefer standard input or --token-file."))
    var token: String?

    @Option(name: .customLong("token-file"), help: "Read the token from this file (its first line).")
    var tokenFile: String?

    @Option(name: .customLong("ca-file"), help: "Trust the certificate authorities in this PEM file for the server.")
    var caFile: String?

    @Flag(help: "Allow plain http:// to a server beyond loopback (the token then crosses the network readable).")
    var insecure = false

    @Option(help: "Give up when the server has not answered in this many seconds.")
    var timeout: Int = 20

    func validate() throws {
        guard server.hasPrefix("http://") || server.hasPrefix("https://") else {
            throw ValidationError("the server's URL must begin with http:// or https://")
        }
        if server.hasPrefix("http://"), !insecure {
            let host = Self.host(of: server)
            guard HostNames.isLoopback(host) else {
                throw ValidationError("http://\(TerminalText.safe(host)) is not loopback: the token would cross the network in the clear; use https:// (or --insecure)")
            }
        }
        if token != nil, token != "-", tokenFile != nil { throw ValidationError("give the token once: as an argument or with --token-file") }
    }

    /// The host of an http(s) URL: its authority without user information,
    /// read as a `Host` header is (port removed, brackets kept on IPv6).
    static func host(of url: String) -> String {
        var authority = Substring(url.drop(while: { $0 != "/" }).dropFirst(2))
        authority = authority.prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return HostNames.name(ofHostHeader: String(authority)) ?? String(authority)
    }

    /// The token from the argument, the file or standard input.
    func readToken() throws -> String {
        var text: String
        if let token, token != "-" {
            StandardStream.error.write("ubiquity: warning: a token given on the command line can be read by other local users; use --token-file or standard input\n")
            text = token
        } else if let tokenFile {
            do { text = String(decoding: try FileIO.read(tokenFile), as: UTF8.self) } catch {
                throw fail("cannot read the token from \(tokenFile): \(error)")
            }
        } else {
            do { text = String(decoding: try FileIO.readAll(fd: 0, path: "standard input"), as: UTF8.self) } catch {
                throw fail("cannot read the token from standard input: \(error)")
            }
        }
        text = String(text.prefix(while: { $0 != "\n" && $0 != "\r" })).trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw fail("no token was given (an argument, --token-file, or standard input)") }
        return text
    }

    func run() async throws {
        let token = try readToken()
        let caPath = caFile.map { $0.hasPrefix("/") ? $0 : (Environment["PWD"] ?? ".") + "/" + $0 }
        let probe = UbiquityAccount(server: server, token: token, name: "", identifier: "x", certificateAuthorities: caPath)
        let info: UbiquityAccountInfo
        do {
            guard let answer = try await within(.seconds(max(1, timeout)), { try await HTTPUbiquityTransport(account: probe).accountInfo() }) else {
                throw fail("cannot log in: \(TerminalText.safe(server)) did not answer within \(max(1, timeout)) seconds")
            }
            info = answer
        } catch let error as ExitCode {
            throw error
        } catch {
            throw fail("cannot log in: \(TerminalText.safe("\(error)"))")
        }
        let account = UbiquityAccount(server: server, token: token, name: info.name, identifier: info.id, certificateAuthorities: caPath)
        do { try account.save() } catch { throw fail("\(error)") }
        StandardStream.output.write("Logged in to \(TerminalText.safe(server)) as \(TerminalText.safe(info.name))\n")
    }
}

struct Logout: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log this user out (local copies stay, per account).")

    func run() throws {
        do { try UbiquityAccount.remove() } catch { throw fail("\(error)") }
    }
}

struct Get: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print a key's value as `defaults read D K` does (exit 1 when absent).")
    @OptionGroup var options: StoreOption
    @Argument(help: "The key.") var key: String

    func run() async throws {
        let store = try openStore(options.store)
        await refresh(store)
        guard let value = store.propertyList(forKey: key) else {
            throw fail("the key \"\(TerminalText.safe(key))\" does not exist in store \(options.store)")
        }
        show(value)
    }
}

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Print every key and value as `defaults read D` does.")
    @OptionGroup var options: StoreOption

    func run() async throws {
        let store = try openStore(options.store)
        await refresh(store)
        show(.dictionary(store.propertyLists))
    }
}

struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set a key: the `defaults write` value grammar (-string, -int, -float, -bool, -date, -data, -array …, -dict …, or a property-list text).")
    @OptionGroup var options: StoreOption
    @Argument(parsing: .captureForPassthrough, help: "The key, then its value.")
    var words: [String] = []

    func run() async throws {
        guard words.count >= 2 else { throw fail("usage: ubiquity set --store ID KEY <value>", code: 64) }
        let key = words[0]
        var rest = ArraySlice(words.dropFirst())
        let value: PropertyList
        do {
            switch try WriteValue.parse(&rest) {
            case .set(let v): value = v
            default: throw fail("ubiquity set takes a value (-array-add, -array-remove and -dict-add are `defaults` verbs)", code: 64)
            }
        } catch let error as WriteValueError {
            throw fail(error.text, code: 64)
        }
        let store = try openStore(options.store)
        do { try store.setOrThrow(value, forKey: key) } catch { throw fail("\(error); nothing was changed") }
        try await upload(store)
    }
}

struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove a key.")
    @OptionGroup var options: StoreOption
    @Argument(help: "The key.") var key: String

    func run() async throws {
        let store = try openStore(options.store)
        do { try store.setOrThrow(nil, forKey: key) } catch { throw fail("\(error)") }
        try await upload(store)
    }
}

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Upload and download now (exit 0 only when the server was reached).")
    @OptionGroup var options: StoreOption

    func run() async throws {
        guard UbiquityAccount.current() != nil else { throw fail("not logged in (`ubiquity login <server-URL> <token>`)") }
        let store = try openStore(options.store)
        do {
            guard try await within(.seconds(30), { try await store.synchronizeWithServer() }) != nil else {
                throw fail("the server did not answer in time")
            }
        } catch let error as UbiquityError {
            throw fail("\(error)")
        }
    }
}

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a line per external change: the reason, then the changed keys (flushed at once).")
    @OptionGroup var options: StoreOption

    func run() async throws {
        guard let account = UbiquityAccount.current() else {
            throw fail("not logged in: there is no server to watch (`ubiquity login <server-URL>`)")
        }
        let store = try openStore(options.store)
        let changes = store.externalChanges()
        store.startWatching()
        // Losing and regaining the server is said on standard error (the changes stay on standard output).
        let server = TerminalText.safe(account.server)
        let reachability = Task {
            var known: Bool? = nil
            while !Task.isCancelled {
                if let now = store.serverReachable, now != known {
                    if now == false { StandardStream.error.write("ubiquity: lost \(server); retrying (changes made meanwhile arrive when it is back)\n") }
                    else if known == false { StandardStream.error.write("ubiquity: \(server) is back\n") }
                    known = now
                }
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        defer { reachability.cancel() }
        for await change in changes {
            StandardStream.output.write(TerminalText.safe(change.description) + "\n")
        }
    }
}
