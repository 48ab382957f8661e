import ArgumentParser
import Logging
import Metrics
import OpenDefaults
import OpenDefaultsUbiquity
import PlatformIO
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Prometheus
import UbiquityPostgres
import UbiquityBackend
import UbiquityServer
import UbiquitySQLite

/// `ubiquity account …`: accounts and their named tokens, on the database
/// directly (a running server hears of a revocation within a second).
struct Account: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Manage the server's accounts and their tokens (one named token per machine).",
        discussion: """
            Tokens are shown once, when made; the server keeps only their SHA-256. Revoking or \
            rotating a token, or deleting its account, is seen by every running server within a \
            second: requests with it are refused (401) and its open event streams end.
            """,
        subcommands: [Add.self, List.self, Tokens.self, Issue.self, Rotate.self, Revoke.self, Delete.self]
    )

    /// Names of accounts and tokens: 1 to 64 letters, digits, '.', '-', '_', '@'.
    static func checkName(_ name: String, what: String) throws {
        guard !name.isEmpty, name.utf8.count <= 64,
            name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-@".unicodeScalars.contains($0)) })
        else { throw ValidationError("the \(what) must be 1 to 64 letters, digits, '.', '-', '_' or '@', not \"\(TerminalText.safe(name))\"") }
    }

    /// Runs `body` on the database, closing it after; a backend's refusal is printed and exits 1.
    /// Makes a token, has `record` keep its hash, and prints `heading` and the
    /// token alone on the last line (it is shown only now).
    static func withNewToken(_ database: DatabaseOptions, heading: String,
                             _ record: (any UbiquityBackend, [UInt8]) async throws -> Void) async throws {
        let token = UbiquityService.newToken()
        try await onDatabase(database) { backend in
            try await record(backend, UbiquityService.hash(token: token))
            StandardStream.output.write("\(heading)\n\(token)\n")
        }
    }

    /// Seconds since 1970 as `defaults read` prints a date (`2026-11-25 13:43:04 +0000`).
    static func time(_ seconds: Int64) -> String {
        PropertyList.descriptionString(for: Date(timeIntervalSince1970: Double(seconds)))
    }

    static func onDatabase(_ database: DatabaseOptions, existing: Bool = true, _ body: (any UbiquityBackend) async throws -> Void) async throws {
        let backend = try await database.open(exclusive: false, existing: existing)
        do {
            try await body(backend)
            try? await backend.close()
        } catch {
            try? await backend.close()
            complain("\(error)")
            throw ExitCode(1)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Create an account; prints its first token (alone on the last line, shown only now: the server keeps its hash)."
        )

        @Argument(help: "The account's name (1 to 64 letters, digits, '.', '-', '_', '@').")
        var name: String

        @Option(name: .customLong("token-name"), help: "The first token's name (a machine's, for instance).")
        var tokenName = "default"

        @Flag(help: "Make the SQLite database when there is none (the first account, before the first `ubiquity serve`); without it a missing database is refused.")
        var create = false

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            try Account.checkName(name, what: "account name")
            try Account.checkName(tokenName, what: "token name")
        }

        func run() async throws {
            let token = UbiquityService.newToken()
            try await Account.onDatabase(database, existing: !create) { backend in
                let info = try await backend.createAccount(name: name, tokenName: tokenName, tokenHash: UbiquityService.hash(token: token))
                StandardStream.output.write("Account \(info.name) (\(info.id)) created; its token \"\(tokenName)\":\n\(token)\n")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the accounts: name, id, tokens, stores, bytes stored.")

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await Account.onDatabase(database) { backend in
                var text = "NAME\tID\tTOKENS\tSTORES\tBYTES\n"
                for a in try await backend.accounts() { text += "\(a.name)\t\(a.id)\t\(a.tokens)\t\(a.stores)\t\(a.bytes)\n" }
                StandardStream.output.write(text)
            }
        }
    }

    struct Tokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "tokens", abstract: "List an account's tokens: name, when made, when last used (UTC; recorded at most once a minute).")

        @Argument(help: "The account's name.")
        var name: String

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await Account.onDatabase(database) { backend in
                var text = "TOKEN\tCREATED\tLAST USED\n"
                for t in try await backend.tokens(account: name) {
                    text += "\(t.name)\t\(Account.time(t.created))\t\(t.lastUsed.map(Account.time) ?? "never")\n"
                }
                StandardStream.output.write(text)
            }
        }
    }

    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "issue", abstract: "Make another named token for an account (another machine's); prints it alone on the last line.")

        @Argument(help: "The account's name.")
        var name: String

        @Option(name: .customLong("token-name"), help: "The new token's name (unique within the account).")
        var tokenName: String

        @OptionGroup var database: DatabaseOptions

        func validate() throws { try Account.checkName(tokenName, what: "token name") }

        func run() async throws {
            try await Account.withNewToken(database, heading: "Token \"\(tokenName)\" of \(name):") { backend, hash in
                try await backend.addToken(account: name, tokenName: tokenName, tokenHash: hash)
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rotate", abstract: "Replace a named token; the old one is refused from now on. Prints the new one alone on the last line.")

        @Argument(help: "The account's name.")
        var name: String

        @Option(name: .customLong("token-name"), help: "The token to replace.")
        var tokenName = "default"

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await Account.withNewToken(database, heading: "Token \"\(tokenName)\" of \(name) replaced; the new one:") { backend, hash in
                try await backend.replaceToken(account: name, tokenName: tokenName, tokenHash: hash)
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a named token, or every token of the account with --all.")

        @Argument(help: "The account's name.")
        var name: String

        @Option(name: .customLong("token-name"), help: "The token to revoke.")
        var tokenName: String?

        @Flag(help: "Revoke every token of the account.")
        var all = false

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            if (tokenName == nil) == !all { throw ValidationError("give --token-name NAME or --all (one of them)") }
        }

        func run() async throws {
            try await Account.onDatabase(database) { backend in
                let n = try await backend.revokeTokens(account: name, tokenName: tokenName)
                StandardStream.output.write(n == 1 ? "1 token of \(name) revoked\n" : "\(n) tokens of \(name) revoked\n")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an account with its tokens and every store's data, on every server.")

        @Argument(help: "The account's name.")
        var name: String

        @Flag(help: "Confirm: the account's data cannot be recovered.")
        var yes = false

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard yes else { throw ValidationError("deleting \(name) removes every store of it for good: add --yes to confirm") }
        }

        func run() async throws {
            try await Account.onDatabase(database) { backend in
                try await backend.deleteAccount(name: name)
                StandardStream.output.write("Account \(name) deleted\n")
            }
        }
    }
}
