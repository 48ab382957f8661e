import ArgumentParser
@_spi(Engine) import OpenDefaults
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PlatformIO
import PropertyList
import Foundation

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
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
        try readSecret(argument: token, file: tokenFile, what: "token", fileOption: "--token-file")
    }

    func run() async throws {
        let token = try readToken()
        let caPath = caFile.map { $0.hasPrefix("/") ? $0 : (Environment["PWD"] ?? ".") + "/" + $0 }
        if let caPath, let why = HTTPUbiquityTransport.certificateAuthorityProblem(at: caPath) {
            throw fail("cannot log in: --ca-file: \(why)")
        }
        let probe = UbiquityAccount(server: server, token: token, name: "", identifier: "x", certificateAuthorities: caPath)
        let info: UbiquityAccountInfo
        do {
            // The request's own limit a second past --timeout, so that --timeout is what gives up (and says so).
            let limit = Int64(max(1, timeout))
            guard let answer = try await within(.seconds(limit), { try await HTTPUbiquityTransport(account: probe).accountInfo(timeout: .seconds(limit + 1)) }) else {
                throw fail("cannot log in: \(server) did not answer within \(max(1, timeout)) seconds")
            }
            info = answer
        } catch let error as ExitCode {
            throw error
        } catch {
            throw fail("cannot log in: \(error)")
        }
        let account = UbiquityAccount(server: server, token: token, name: info.name, identifier: info.id, certificateAuthorities: caPath)
        do { try account.save() } catch { throw fail("\(error)") }
        StandardStream.output.write("Logged in to \(TerminalText.safe(server)) as \(TerminalText.safe(info.name))\n")
    }
}
