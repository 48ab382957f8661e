import NIOSSL
import PlatformIO
package import PostgresNIO
package import UbiquityBackend

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

    /// The server this location points at now (the first of ``endpoints`` unless chosen otherwise).
    package var endpoint: Endpoint
    /// Every server given (`host=a,b` or `HOST1:PORT1,HOST2:PORT2`): a primary and its standbys;
    /// the backend uses the one that is not in recovery.
    package var endpoints: [Endpoint]
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
        let defaultPort = Int(query["port"] ?? "") ?? 5432
        var hosts: [(host: String, port: Int)] = []
        // Several hosts, comma-separated (libpq's form), each with its own port or the default.
        for item in authority.split(separator: ",", omittingEmptySubsequences: false) where !(item.isEmpty && authority.isEmpty) {
            var host = "", port = defaultPort
            if item.hasPrefix("[") {
                guard let close = item.firstIndex(of: "]") else { throw bad("an IPv6 host lacks its ]") }
                host = String(item[item.index(after: item.startIndex)..<close])
                let after = item[item.index(after: close)...]
                if after.hasPrefix(":") {
                    guard let p = Int(after.dropFirst()), (1...65535).contains(p) else { throw bad("the port \"\(after.dropFirst())\" is not 1 to 65535") }
                    port = p
                }
            } else if let colon = item.lastIndex(of: ":") {
                host = String(item[..<colon])
                guard let p = Int(item[item.index(after: colon)...]), (1...65535).contains(p) else {
                    throw bad("the port \"\(item[item.index(after: colon)...])\" is not 1 to 65535")
                }
                port = p
            } else {
                host = String(item)
            }
            hosts.append((host, port))
        }
        if let h = query["host"] { hosts = h.split(separator: ",").map { (String($0), defaultPort) } }
        guard let database = Self.percentDecoded(path), !database.isEmpty else { throw bad("it names no database") }
        if user.isEmpty { user = Environment["USER"] ?? "postgres" }
        if hosts.isEmpty || (hosts.count == 1 && hosts[0].host.isEmpty) { hosts = [("/run/postgresql", defaultPort)] }
        guard hosts.count <= 16, hosts.allSatisfy({ !$0.host.isEmpty }) else { throw bad("give 1 to 16 hosts, none empty") }
        endpoints = hosts.map { h in h.host.hasPrefix("/") ? .socket(path: h.host + "/.s.PGSQL.\(h.port)") : .tcp(host: h.host, port: h.port) }
        endpoint = endpoints[0]
        let local = endpoints.allSatisfy { e in
            switch e {
            case .socket: true
            case .tcp(let h, _): HostNames.isLoopback(h)
            }
        }
        if let mode = query["sslmode"] {
            guard let m = TLSMode(rawValue: mode) else { throw bad("sslmode must be disable, prefer or require, not \"\(mode)\"") }
            tls = m
        } else {
            tls = local ? .disable : .require
        }
        if tls == .require, endpoints.contains(where: { if case .socket = $0 { true } else { false } }) { throw bad("sslmode=require over a Unix socket") }
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

    /// The same location pointing at `endpoints[index]`.
    package func pointing(at index: Int) -> PostgresLocation {
        var copy = self
        copy.endpoint = endpoints[index]
        return copy
    }

    /// The current server, as `HOST:PORT` or the socket's path.
    package var endpointDescription: String {
        switch endpoint {
        case .socket(let path): path
        case .tcp(let host, let port): "\(host):\(port)"
        }
    }

    /// The URL without its password (for messages and logs).
    package var description: String {
        let servers = endpoints.map { e -> String in
            switch e {
            case .socket(let path): path
            case .tcp(let host, let port): "\(host):\(port)"
            }
        }
        return "postgres://\(user)@\(servers.joined(separator: ","))/\(database)"
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
