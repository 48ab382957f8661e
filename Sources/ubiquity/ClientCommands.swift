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
    complain(message)
    return ExitCode(code)
}

/// Writes `ubiquity: message` to standard error, its control characters escaped: a message
/// carries a server's words, a file's, a certificate's or a database's, and none of them may
/// drive the terminal.
func complain(_ message: String) {
    StandardStream.error.write("ubiquity: \(TerminalText.safe(message, keepingNewlines: true))\n")
}

/// A secret's first line (a token, an enrolment secret): from the command line (with a warning:
/// other local users can read it), from `file`, or from standard input; refused when empty.
func readSecret(argument: String?, file: String?, what: String, fileOption: String) throws -> String {
    var text: String
    if let argument, argument != "-" {
        complain("warning: a \(what) given on the command line can be read by other local users; use \(fileOption) or standard input")
        text = argument
    } else if let file {
        do { text = String(decoding: try FileIO.read(file, limit: 64 << 10), as: UTF8.self) } catch {
            throw fail("cannot read the \(what) from \(file): \(error)")
        }
    } else {
        do { text = String(decoding: try FileIO.readAll(fd: 0, path: "standard input"), as: UTF8.self) } catch {
            throw fail("cannot read the \(what) from standard input: \(error)")
        }
    }
    text = String(text.prefix(while: { $0 != "\n" && $0 != "\r" })).trimmingCharacters(in: .whitespaces)
    guard !text.isEmpty else { throw fail("no \(what) was given (an argument, \(fileOption), or standard input)") }
    return text
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

/// Brings the local copy up to date when the server answers within two seconds;
/// reads stay local otherwise, and standard error says why.
func refresh(_ store: UbiquitousKeyValueStore) async {
    guard let account = UbiquityAccount.current() else {
        complain("not logged in (`ubiquity login <server-URL>`): this machine's copy only")
        return
    }
    do {
        if try await within(.seconds(2), { try await store.synchronizeWithServer() }) == nil {
            complain("\(account.server) did not answer within 2 seconds: this machine's copy")
        }
    } catch let error as UbiquityError {
        complain("\(error): this machine's copy")
    } catch {}
}

/// Uploads what a command wrote: exit 0 when uploaded or kept for later, 1 when refused.
/// A server slow to answer is said at once (the write is kept), not after the wait.
func upload(_ store: UbiquitousKeyValueStore) async throws {
    _ = store.synchronize()
    guard let account = UbiquityAccount.current() else {
        complain("not logged in: the write is kept on this machine (log in with `ubiquity login <server-URL>`)")
        return
    }
    let server = account.server
    let attempt = Task { try await store.synchronizeWithServer() }
    let notice = Task {
        try await Task.sleep(for: .milliseconds(300))
        complain("waiting for \(server): the write is kept on this machine meanwhile")
    }
    defer { notice.cancel() }
    do {
        let done: Void? = try await within(.seconds(10)) { try await attempt.value }
        if done == nil {
            attempt.cancel()
            complain("\(server) did not answer in time: the write is kept on this machine and uploaded by the next `ubiquity sync`")
        }
    } catch let error as UbiquityError {
        notice.cancel()
        switch error {
        case .refusedByServer: throw fail("\(error)")
        case .unauthorized: throw fail(notValid(error, server: server) + "; the write is kept on this machine and uploaded once you have")
        default:
            complain("\(error)")
            complain("the write is kept on this machine and uploaded by the next `ubiquity sync`")
        }
    }
    _ = store.synchronize()
}

/// A refused token, said as what it means and what to do: the server's words, then how to log in again.
func notValid(_ error: UbiquityError, server: String) -> String {
    "this machine's token is not valid (\(error)): log in again with `ubiquity login \(server)` and a valid token on standard input"
}
