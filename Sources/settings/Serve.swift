import ArgumentParser
import Hummingbird
import PlatformIO
import SettingsBundle
import SettingsWeb

/// `settings serve`: the Settings app as a local web server.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the Settings app in the browser (loopback by default).",
        discussion: """
            Lists the installed applications; each pane is rendered as iOS renders it and edits \
            are written through OpenDefaults (Apply, Revert, Reset to Defaults). Works without \
            JavaScript. Example: settings serve --bundle Examples/AppSettings/Settings.bundle --domain com.example.AppSettings
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

    func validate() throws {
        if (bundle == nil) != (domain == nil) { throw ValidationError("--bundle and --domain go together") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
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
        let settingsApp = SettingsApp(catalog: SettingsCatalog(), extraBundles: extra)
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            try await HTTPAdapter.respond(to: request, with: settingsApp)
        }
        let host = hostname
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname(host, port: port), serverName: "settings"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                StandardStream.output.write("Settings app at http://\(host):\(bound)/\n")
            }
        )
        try await app.runService()
    }
}

/// Between Hummingbird's requests and responses and the server-independent ``SettingsApp``.
enum HTTPAdapter {
    /// The largest form accepted (a pane's fields are a few kilobytes).
    static let maximumBody = 1 << 20

    static func respond(to request: Request, with app: SettingsApp) async throws -> Response {
        var request = request
        let method: SettingsRequest.Method
        switch request.method {
        case .get, .head: method = .get
        case .post: method = .post
        default: return Response(status: .methodNotAllowed, headers: [.allow: "GET, POST"])
        }
        var form = FormData(fields: [])
        if method == .post {
            let body: ByteBuffer
            do { body = try await request.collectBody(upTo: maximumBody) } catch {
                return Response(status: .contentTooLarge, body: .init(byteBuffer: ByteBuffer(string: "The form is larger than 1 MiB.\n")))
            }
            form = FormData(urlEncoded: String(buffer: body))
        }
        let answer = app.respond(to: SettingsRequest(
            method: method, path: request.uri.path, query: FormData(urlEncoded: request.uri.query ?? ""),
            form: form, acceptLanguage: request.headers[.acceptLanguage] ?? ""))
        var headers: HTTPFields = [.contentType: answer.contentType, .cacheControl: "no-store",
                                   .init("X-Content-Type-Options")!: "nosniff",
                                   .init("Content-Security-Policy")!: "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'"]
        if let location = answer.location { headers[.location] = location }
        return Response(status: .init(code: answer.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
