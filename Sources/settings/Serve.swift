import ArgumentParser
import Hummingbird
import HTTPGuards
import HummingbirdCore
import HummingbirdTLS
import NIOCore
import PlatformIO
import SettingsBundle
import SettingsWeb
import HTTPMessages

/// `settings serve`: the Settings app as a local web server.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the Settings app in the browser (loopback by default).",
        discussion: """
            Lists the installed applications; each pane is rendered as iOS renders it and edits \
            are written through OpenDefaults (Apply, Revert, Reset to Defaults). Works without \
            JavaScript. Example: settings serve --bundle Examples/AppSettings/Settings.bundle --domain com.example.AppSettings

            Security: only requests whose Host is 127.0.0.1, localhost, [::1], the listening \
            address or an --allow-host name are answered (against DNS rebinding; bound to 0.0.0.0 \
            or :: without --allow-host, also this machine's host name and addresses); every change \
            must come from the app's own form (a per-server token, and Origin / Sec-Fetch-Site \
            checked), so other web pages cannot change settings. Listening beyond loopback \
            (e.g. --host 0.0.0.0) requires HTTPS (--tls-cert and --tls-key; --insecure to serve \
            plain HTTP there anyway, for a TLS proxy in front or a network you trust) and an \
            access token: one is generated and printed once as an address to open (it is then \
            kept in a Secure cookie), or read from --token-file; --no-auth turns this off \
            explicitly. Connections idle for --idle-timeout seconds are closed, and at most \
            --max-connections are kept open.
            """
    )

    @Option(name: [.customLong("hostname"), .customLong("host")], help: "The address to listen on (loopback by default).")
    var hostname: String = "127.0.0.1"

    @Option(name: [.customShort("p"), .long], help: "The port to listen on (0 picks a free one).")
    var port: Int = 8080

    @Option(help: "Also serve this bundle without installing it (with --domain).")
    var bundle: String?

    @Option(help: "The application domain of --bundle.")
    var domain: String?

    @Option(name: .customLong("allow-host"), help: "Also answer requests for this Host name (repeatable).")
    var allowHosts: [String] = []

    @Option(name: .customLong("token-file"), help: "Read the access token from this file instead of generating one (beyond loopback).")
    var tokenFile: String?

    @Flag(name: .customLong("no-auth"), help: "Listen beyond loopback without an access token (anyone who can reach the port can change settings).")
    var noAuth = false

    @Option(name: .customLong("tls-cert"), help: "A PEM certificate chain: serve HTTPS (with --tls-key).")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "The PEM private key of --tls-cert.")
    var tlsKey: String?

    @Flag(name: .customLong("insecure"), help: "Serve plain HTTP beyond loopback (the access token and every setting then cross the network readable).")
    var insecure = false

    @Option(name: .customLong("idle-timeout"), help: "Seconds a connection may stay idle or sending its request before it is closed.")
    var idleTimeout: Int = 10

    @Option(name: .customLong("max-connections"), help: "The most connections kept open at once (the longest idle is closed to make room).")
    var maxConnections: Int = 256

    func validate() throws {
        if (bundle == nil) != (domain == nil) { throw ValidationError("--bundle and --domain go together") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard idleTimeout >= 1 else { throw ValidationError("--idle-timeout must be at least 1 second") }
        guard maxConnections >= 2 else { throw ValidationError("--max-connections must be at least 2") }
        if noAuth, tokenFile != nil { throw ValidationError("--no-auth and --token-file contradict each other") }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if !HostNames.isLoopback(hostname), tlsCert == nil, !insecure {
            throw ValidationError("--host \(TerminalText.safe(hostname)) is beyond loopback: serving there needs --tls-cert and --tls-key (HTTPS), or --insecure to send the access token and settings in the clear")
        }
    }

    func run() async throws {
        var extra: [String: String] = [:]
        if let bundle, let domain {
            do { _ = try SettingsBundle(path: bundle) } catch {
                StandardStream.error.write("settings: \(error)\n")
                throw ExitCode(1)
            }
            extra[domain] = bundle
        }
        // The certificate and key checked before listening: a mistake named now, not a failed handshake later.
        let tls: ServerTLS?
        if let tlsCert, let tlsKey {
            do { tls = try ServerTLS(certificateFile: tlsCert, keyFile: tlsKey) } catch {
                StandardStream.error.write("settings: \(TerminalText.safe(error.description))\n")
                throw ExitCode(1)
            }
        } else {
            tls = nil
        }
        let loopback = HostNames.isLoopback(hostname)
        var accessToken: String? = nil
        if !loopback, !noAuth {
            if let tokenFile {
                do {
                    let text = String(decoding: try FileIO.read(tokenFile), as: UTF8.self)
                    let token = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
                    guard token.count >= 16, token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                        StandardStream.error.write("settings: \(tokenFile): expected a token of at least 16 letters, digits, '-' or '_' on its first line\n")
                        throw ExitCode(1)
                    }
                    accessToken = token
                } catch let error as FileError {
                    StandardStream.error.write("settings: cannot read the token file: \(error)\n")
                    throw ExitCode(1)
                }
            } else {
                accessToken = AccessPolicy.randomToken()
            }
        }
        let hosts = HostNames.answered(listeningOn: hostname, allowed: allowHosts)
        let listening = HostNames.hostHeaderName(ofAddress: hostname)
        let policy = AccessPolicy(allowedHosts: hosts, accessToken: accessToken, secure: tls != nil)
        let token = accessToken
        raiseOpenFileLimit(toAtLeast: maxConnections + 64)

        let settingsApp = SettingsApp(catalog: SettingsCatalog(), extraBundles: extra, policy: policy)
        let bodyTimeout = Duration.seconds(idleTimeout)
        let governor = ConnectionGovernor(limit: maxConnections)
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            try await SettingsHTTP.respond(to: request, with: settingsApp, bodyTimeout: bodyTimeout, governor: governor)
        }
        let host = hostname
        let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [governor.handler()], idleTimeout: .seconds(Int64(idleTimeout)))
        // The connection known to its task: a form's deadline is a timer on it (BodyReading).
        let server: HTTPServerBuilder
        if let tls {
            server = HTTPServerBuilder { responder in
                CurrentConnectionChannel(base: try TLSChannel(HTTP1Channel(responder: responder, configuration: http1), tlsConfiguration: tls.configuration))
            }
        } else {
            server = HTTPServerBuilder { responder in
                CurrentConnectionChannel(base: HTTP1Channel(responder: responder, configuration: http1))
            }
        }
        let scheme = tls == nil ? "http" : "https"
        // The names other machines may use for it (HostNames.answered's rule, said as the operator set it up).
        let reach = HostNames.isEveryAddress(hostname) && allowHosts.isEmpty
            ? "this machine's host name or one of its addresses; other names need --allow-host"
            : TerminalText.safe(hosts.subtracting(HostNames.loopbackNames).sorted().joined(separator: ", ")) + " (more with --allow-host)"
        let app = Application(
            responder: responder,
            server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "settings"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                let shown = HostNames.isEveryAddress(host) ? "127.0.0.1" : listening
                if let token {
                    StandardStream.output.write("Settings app at \(scheme)://\(shown):\(bound)/?token=\(token)\n")
                    StandardStream.error.write("settings: listening on \(host):\(bound), beyond loopback: open the address above (it carries the access token, shown only now); other machines reach it by \(reach)\n")
                } else {
                    StandardStream.output.write("Settings app at \(scheme)://\(shown):\(bound)/\n")
                    if !loopback {
                        StandardStream.error.write("settings: warning: listening on \(host):\(bound) without authentication (--no-auth): anyone who can reach this port can change settings\n")
                    }
                }
                if tls == nil, !loopback {
                    StandardStream.error.write("settings: warning: plain HTTP beyond loopback (--insecure): the access token and every setting cross the network readable\n")
                }
            }
        )
        do {
            try await app.runService()
        } catch {
            guard let reason = ListenFailure.reason(error, host: hostname, port: port) else { throw error }
            StandardStream.error.write("settings: \(reason)\n")
            throw ExitCode(1)
        }
    }

    /// Raises the soft limit of open files so that the connection cap, not
    /// the file limit, is what a flood of connections meets.
    func raiseOpenFileLimit(toAtLeast wanted: Int) {
        Environment.raiseOpenFileLimit(toAtLeast: wanted)
    }
}
