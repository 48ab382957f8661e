import NIOSSL
import PlatformIO
import PostgresNIO
import UbiquityServer

/// Where the database is, read from a `postgres://` URL as libpq reads it.
///
/// ```
/// postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=require
/// postgres:///DATABASE?host=/run/postgresql&user=ubiquity     (a Unix socket in that folder)
/// ```
///
/// `sslmode` is `disable`, `prefer` or `require`. Without it, a Unix socket
/// or a loopback host connects in the clear and any other host requires TLS
/// (the server's tokens and values cross the network otherwise).
package struct PostgresLocation: Sendable, CustomStringConvertible {
    package enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        case socket(path: String)
    }
    package enum TLSMode: String, Sendable { case disable, prefer, require }

    package var endpoint: Endpoint
    package var user: String
    package var password: String?
    package var database: String
    package var tls: TLSMode

    /// Parses `text`; the error says which part is wrong.
    package init(_ text: String) throws(BackendError) {
        func bad(_ why: String) -> BackendError { BackendError(status: 500, "the PostgreSQL URL is not valid: \(why) (expected postgres://USER:PASSWORD@HOST:PORT/DATABASE or postgres:///DATABASE?host=/socket/folder)") }
        var rest: Substring
        if text.hasPrefix("postgres://") { rest = text.dropFirst("postgres://".count) }
        else if text.hasPrefix("postgresql://") { rest = text.dropFirst("postgresql://".count) }
        else { throw bad("it must start with postgres://") }
        var query: [String: String] = [:]
        if let q = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: q)...].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                guard kv.count == 2, let k = Self.percentDecoded(kv[0]), let v = Self.percentDecoded(kv[1]) else { throw bad("the parameter \"\(pair)\" is not NAME=VALUE") }
                query[k] = v
            }
            rest = rest[..<q]
        }
        var authority = rest
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        }
        var user = query["user"] ?? ""
        var password = query["password"]
        if let at = authority.lastIndex(of: "@") {
            let info = authority[..<at]
            authority = authority[authority.index(after: at)...]
            let parts = info.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let u = Self.percentDecoded(parts[0]) else { throw bad("the user name is not percent-encoded properly") }
            user = u
            if parts.count == 2 {
                guard let p = Self.percentDecoded(parts[1]) else { throw bad("the password is not percent-encoded properly") }
                password = p
            }
        }
        var host = ""
        var port = Int(query["port"] ?? "") ?? 5432
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw bad("an IPv6 host lacks its ]") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let p = Int(after.dropFirst()), (1...65535).contains(p) else { throw bad("the port \"\(after.dropFirst())\" is not 1 to 65535") }
                port = p
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else {
                throw bad("the port \"\(authority[authority.index(after: colon)...])\" is not 1 to 65535")
            }
            port = p
        } else {
            host = String(authority)
        }
        if let h = query["host"] { host = h }
        guard let database = Self.percentDecoded(path), !database.isEmpty else { throw bad("it names no database") }
        if user.isEmpty { user = Environment["USER"] ?? "postgres" }
        if host.isEmpty { host = "/run/postgresql" }
        if host.hasPrefix("/") {
            endpoint = .socket(path: host + "/.s.PGSQL.\(port)")
        } else {
            endpoint = .tcp(host: host, port: port)
        }
        let local: Bool
        switch endpoint {
        case .socket: local = true
        case .tcp(let h, _): local = HostNames.isLoopback(h)
        }
        if let mode = query["sslmode"] {
            guard let m = TLSMode(rawValue: mode) else { throw bad("sslmode must be disable, prefer or require, not \"\(mode)\"") }
            tls = m
        } else {
            tls = local ? .disable : .require
        }
        if case .socket = endpoint, tls == .require { throw bad("sslmode=require over a Unix socket") }
        self.user = user
        self.password = password
        self.database = database
    }

    static func percentDecoded(_ text: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        var it = Array(text.utf8).makeIterator()
        while let b = it.next() {
            if b == UInt8(ascii: "%") {
                guard let h = it.next(), let l = it.next(), let v = UInt8(String(decoding: [h, l], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(v)
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The URL without its password (for messages and logs).
    package var description: String {
        switch endpoint {
        case .socket(let path): "postgres://\(user)@\(path)/\(database)"
        case .tcp(let host, let port): "postgres://\(user)@\(host):\(port)/\(database)"
        }
    }

    /// The pool's configuration.
    package func clientConfiguration(maximumConnections: Int) -> PostgresClient.Configuration {
        var c: PostgresClient.Configuration
        switch endpoint {
        case .socket(let path):
            c = .init(unixSocketPath: path, username: user, password: password, database: database)
        case .tcp(let host, let port):
            let tlsConfiguration = TLSConfiguration.makeClientConfiguration()
            let mode: PostgresClient.Configuration.TLS = switch tls {
            case .disable: .disable
            case .prefer: .prefer(tlsConfiguration)
            case .require: .require(tlsConfiguration)
            }
            c = .init(host: host, port: port, username: user, password: password, database: database, tls: mode)
        }
        c.options.maximumConnections = maximumConnections
        c.options.minimumConnections = 0
        c.options.connectTimeout = .seconds(3)
        c.options.additionalStartupParameters = [("application_name", "ubiquity")]
        return c
    }

    /// A single connection's configuration (the listener's).
    package func connectionConfiguration() throws -> PostgresConnection.Configuration {
        switch endpoint {
        case .socket(let path):
            var c = PostgresConnection.Configuration(unixSocketPath: path, username: user, password: password, database: database)
            c.options.connectTimeout = .seconds(3)
            c.options.additionalStartupParameters = [("application_name", "ubiquity-listener")]
            return c
        case .tcp(let host, let port):
            let context = try NIOSSLContext(configuration: .makeClientConfiguration())
            let mode: PostgresConnection.Configuration.TLS = switch tls {
            case .disable: .disable
            case .prefer: .prefer(context)
            case .require: .require(context)
            }
            var c = PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: mode)
            c.options.connectTimeout = .seconds(3)
            c.options.additionalStartupParameters = [("application_name", "ubiquity-listener")]
            return c
        }
    }
}
