#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AsyncHTTPClient
public import NIOCore
import NIOFoundationCompat
import NIOSSL
public import OpenDefaultsUbiquity
import PlatformIO
import NIOHTTP1
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The sync protocol over HTTP (AsyncHTTPClient): what connects a
/// ``UbiquitousKeyValueStore`` to a `ubiquity serve` server.
///
/// ```swift
/// UbiquityHTTP.install()                               // at launch
/// let store = UbiquitousKeyValueStore.default          // now syncs with `ubiquity login`'s server
/// ```
public final class HTTPUbiquityTransport: UbiquityTransport {
    let account: UbiquityAccount
    let base: String
    let client: HTTPClient
    /// The length of event streams asked of the server; nil for its default.
    let streamSeconds: Int?

    /// How long a request other than a long poll may take.
    public static let requestTimeout: TimeAmount = .seconds(10)

    /// A transport for `account` (its server, token and trusted certificate
    /// authorities), keeping at most `maximumConnections` connections to the
    /// server (a store needs two: its event stream and its commits).
    public convenience init(account: UbiquityAccount, maximumConnections: Int = 4) {
        self.init(account: account, maximumConnections: maximumConnections, idleTimeout: .seconds(50))
    }

    /// As ``init(account:maximumConnections:)``, closing a connection once it has been idle for
    /// `idleTimeout`. A fleet agent, whose commits are rare reports, keeps no connection beside
    /// its event streams (each one costs the server memory for every machine). `streamSeconds`:
    /// how long the server holds each event stream (a fleet agent asks for 150 s, so that an idle
    /// machine wakes less than once a minute); nil for the server's default, 30 s.
    package init(account: UbiquityAccount, maximumConnections: Int, idleTimeout: Duration, streamSeconds: Int? = nil) {
        self.streamSeconds = streamSeconds
        self.account = account
        base = account.server.hasSuffix("/") ? String(account.server.dropLast()) : account.server
        var tls = TLSConfiguration.makeClientConfiguration()
        if let ca = account.certificateAuthorities, let certs = try? NIOSSLCertificate.fromPEMFile(ca) {
            tls.trustRoots = .certificates(certs)
        }
        // (A file that cannot be read leaves the system's roots: `ubiquity login` checks it first,
        // with ``certificateAuthorityProblem(at:)``.)
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        // Silence longer than a stream's length and a margin is a connection that died. A client
        // of long streams (the fleet agent) takes 5 s for both margins: a stream's read timeout,
        // left armed when the stream ends, then fires with the next stream's connect timeout, at
        // one moment (an event loop wakes for a timer even once it is cancelled; proposal 0020).
        if let streamSeconds {
            configuration.timeout = .init(connect: .seconds(5), read: .seconds(Int64(streamSeconds) + 5))
        } else {
            configuration.timeout = .init(connect: .seconds(2), read: .seconds(40))
        }
        configuration.connectionPool = .init(idleTimeout: TimeAmount(idleTimeout), concurrentHTTP1ConnectionsPerHostSoftLimit: maximumConnections)
        configuration.redirectConfiguration = .disallow
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    deinit {
        // Shut down without waiting: the last reference may go on a thread of
        // the cooperative pool, and `syncShutdown()` would hold that thread
        // until every connection is closed.
        let client = self.client
        Task { try? await client.shutdown() }
    }

    /// Who the token belongs to (`GET /v1/account`), given up on after `timeout` (by default
    /// ``requestTimeout``; `ubiquity login --timeout` waits longer or shorter).
    public func accountInfo(timeout: Duration? = nil) async throws(UbiquityError) -> UbiquityAccountInfo {
        try await send("GET", "/v1/account", body: nil, timeout: timeout.map(TimeAmount.init) ?? Self.requestTimeout, as: UbiquityAccountInfo.self)
    }

    public func commit(store: String, _ request: UbiquityCommitRequest) async throws(UbiquityError) -> UbiquityCommitResponse {
        let body = Data(request.jsonBytes)
        return try await send("POST", "/v1/stores/\(store)/commit", body: body, timeout: Self.requestTimeout, as: UbiquityCommitResponse.self)
    }

    /// Enrols this machine in the organisation whose enrolment secret is this transport's token
    /// (`POST /v1/fleet/enroll`): the machine's own credential and the certificate to pin.
    package func enroll(_ request: UbiquityEnrollRequest) async throws(UbiquityError) -> UbiquityEnrollResponse {
        let body: Data
        do { body = try JSONEncoder().encode(request) } catch { throw .storage("cannot encode the enrolment: \(error)") }
        return try await send("POST", "/v1/fleet/enroll", body: body, timeout: Self.requestTimeout, as: UbiquityEnrollResponse.self)
    }

    public func changes(store: String, after: Int64, wait: Duration?) async throws(UbiquityError) -> UbiquityChangesResponse {
        let seconds = wait.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 } ?? 0
        let timeout = Self.requestTimeout + .milliseconds(Int64(seconds * 1000))
        return try await send("GET", "/v1/stores/\(store)/changes?after=\(after)&wait=\(seconds)", body: nil, timeout: timeout,
                              as: UbiquityChangesResponse.self)
    }

    /// The store's changes as the server's event stream (`GET /v1/stores/{store}/events`):
    /// one answer at once, then one per commit, for the stream's 30 seconds (or this client's
    /// `streamSeconds`).
    public func events(store: String, after: Int64) -> AsyncThrowingStream<UbiquityChangesResponse, any Error> {
        eventStream("/v1/stores/\(store)/events?after=\(after)\(streamWait)", as: UbiquityChangesResponse.self) { $0 }
    }

    /// The `wait` of this client's event streams, as a query field to append (none: the server's 30 s).
    var streamWait: String { streamSeconds.map { "&wait=\($0)" } ?? "" }

    /// Waits `duration` on a timer of the client's event loops, not on Swift's executor: in Swift
    /// 6.3 `Task.sleep` goes straight to libdispatch's timers, whose worker pool then wakes every
    /// second for the life of the process. For the fleet agent (proposal 0020).
    package func pause(for duration: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            client.eventLoopGroup.any().scheduleTask(in: TimeAmount(duration)) { continuation.resume() }
        }
    }

    /// Several stores' changes as one event stream of the server (`GET /v1/events`), each
    /// store from its own revision: the stream's first answers (one a store), then one a
    /// commit, each with the store it answers for, for the stream's 30 seconds (or this client's
    /// `streamSeconds`). One
    /// connection, and one stream on the server, however many stores (at most 16).
    package func events(stores: [(store: String, after: Int64)]) -> AsyncThrowingStream<(store: String, changes: UbiquityChangesResponse), any Error> {
        let list = stores.map { "\($0.store):\($0.after)" }.joined(separator: ",")
        return eventStream("/v1/events?stores=\(list)\(streamWait)", as: StoreChanges.self) { ($0.store, $0.changes) }
    }

    /// An event of a stream of several stores: the store it names and its changes, from one parse.
    struct StoreChanges: Decodable {
        var store: String
        var changes: UbiquityChangesResponse
        enum CodingKeys: CodingKey { case store }

        init(from decoder: any Decoder) throws {
            store = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .store)
            changes = try UbiquityChangesResponse(from: decoder)
        }
    }

    /// The events of the stream at `path`, each decoded as `T` and handed on as `make` makes it.
    func eventStream<T: Decodable, Element: Sendable>(_ path: String, as: T.Type,
                                                       _ make: @escaping @Sendable (T) -> Element) -> AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do throws(UbiquityError) {
                    try await follow(path) { data throws(UbiquityError) in
                        guard let value = try? JSONDecoder().decode(T.self, from: data) else {
                            throw UbiquityError.unreachable("\(base) sent an event that is not a changes answer")
                        }
                        continuation.yield(make(value))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Reads the event stream at `path`, handing each event's data to `deliver`.
    func follow(_ path: String, _ deliver: (Data) throws(UbiquityError) -> Void) async throws(UbiquityError) {
        var request = HTTPClientRequest(url: base + path)
        request.headers.add(name: "Authorization", value: "Bearer \(account.token)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        let response: HTTPClientResponse
        // The deadline bounds the wait for the answer's head; the body is bounded by the read timeout.
        // The client's timers fire even when what they guard is done (a timer cancelled from
        // another thread still wakes its event loop once, at its time), so a client of long
        // streams (the fleet agent, proposal 0020) sets none it can do without: a day's deadline,
        // the head being bounded by the read timeout (the stream's length and 5 s), and no
        // pooled connection, whose idle timer would start as each stream ends.
        let deadline: NIODeadline
        if streamSeconds != nil {
            request.headers.add(name: "Connection", value: "close")
            deadline = .now() + .hours(24)
        } else {
            deadline = .now() + Self.requestTimeout
        }
        do { response = try await client.execute(request, deadline: deadline) } catch {
            throw .unreachable("\(base): \(Self.reason(error))")
        }
        let status = Int(response.status.code)
        guard status == 200 else {
            let data = (try? await response.body.collect(upTo: 1 << 20)).map { Data(buffer: $0) } ?? Data()
            throw failure(status: status, body: data)
        }
        var parser = ServerSentEventParser()
        do {
            for try await chunk in response.body {
                for event in try parser.feed(chunk.readableBytesView) {
                    let data = Data(event.data.utf8)
                    guard event.name == "message" else {
                        throw UbiquityError.unreachable("\(base) ended the event stream: \(Self.errorBody(data).message)")
                    }
                    try deliver(data)
                }
            }
        } catch let error as UbiquityError {
            throw error
        } catch {
            throw .unreachable("\(base): \(Self.reason(error))")
        }
    }

    func send<T: Decodable>(_ method: String, _ path: String, body: Data?, timeout: TimeAmount, as: T.Type) async throws(UbiquityError) -> T {
        var request = HTTPClientRequest(url: base + path)
        request.method = .RAW(value: method)
        request.headers.add(name: "Authorization", value: "Bearer \(account.token)")
        request.headers.add(name: "Accept", value: "application/json")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: body))
        }
        var answered: Int? = nil
        let bytes: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: timeout)
            answered = Int(response.status.code)
            bytes = try await response.body.collect(upTo: 8 << 20)
        } catch {
            // A refusal whose head arrived is that refusal, even if the connection closed
            // before its short body did (the server closes after refusing an upload).
            if let answered, answered == 401 || answered == 403 { throw failure(status: answered, body: Data()) }
            // A connection lost while a body was uploading may be a refusal whose answer the
            // network dropped (a server that refuses on the head closes without reading the
            // body; a reset can discard the answer already received). A request without a body
            // cannot race that way: it tells whether the token is still good.
            if body != nil, answered == nil, Self.mayHideAnAnswer(error) {
                do { _ = try await accountInfo() } catch {
                    if case .unauthorized = error { throw error }
                }
            }
            throw .unreachable("\(base): \(Self.reason(error))")
        }
        let status = answered ?? 0
        let data = Data(buffer: bytes)
        switch status {
        case 200, 422:
            do { return try JSONDecoder().decode(T.self, from: data) } catch {
                throw .unreachable("\(base) answered \(status) with an unexpected body")
            }
        default:
            throw failure(status: status, body: data)
        }
    }

    /// The error for a refused request: the account's (401, 403) or the server's (any other status).
    func failure(status: Int, body: Data) -> UbiquityError {
        let answer = Self.errorBody(body)
        let said = "\(base) answered \(status): \(answer.message)"
        if status == 401 || status == 403 { return .unauthorized(said) }
        if status == 503, answer.code == .notApplied { return .notApplied(said) }
        return .unreachable(said)
    }

    /// Whether the connection failed after it was made (closed, reset, written
    /// after it closed): a failure that an answer received before it may explain.
    static func mayHideAnAnswer(_ error: any Error) -> Bool {
        if let e = error as? HTTPClientError {
            return e == .remoteConnectionClosed
        }
        if let e = error as? IOError { return e.errnoCode == ECONNRESET || e.errnoCode == EPIPE }
        if let e = error as? ChannelError { return e == .ioOnClosedChannel || e == .outputClosed || e == .eof }
        return false
    }

    /// A connection's failure as a person reads it: "connection refused", not
    /// the networking library's type and errno number.
    static func reason(_ error: any Error) -> String {
        if let e = error as? IOError {
            return FileError.text(errno: e.errnoCode)
        }
        if let e = error as? HTTPClientError {
            switch e {
            case .connectTimeout: return "no connection within the time allowed"
            case .readTimeout, .deadlineExceeded: return "no answer within the time allowed"
            case .remoteConnectionClosed: return "the server closed the connection"
            case .cancelled: return "the request was cancelled"
            default: return "\(e)"
            }
        }
        if let e = error as? NIOSSLError {
            if "\(e)".contains("CERTIFICATE_VERIFY_FAILED") {
                return "the server's TLS certificate is not trusted here: no certificate authority this machine trusts signed it "
                    + "(one of your own is given with `ubiquity login --ca-file FILE`, or the account's certificateAuthorities)"
            }
            return "TLS failed (\(e))"
        }
        if let e = error as? NIOSSLExtraError, e == .failedToValidateHostname {
            return "the server's TLS certificate is not for the host name in its URL"
        }
        let text = "\(error)"
        // Errors that carry an errno name it this way (NIO's connection errors).
        if let range = text.firstRange(of: "(errno: "), let end = text[range.upperBound...].firstIndex(of: ")"),
           let code = Int32(text[range.upperBound..<end]) {
            return FileError.text(errno: code)
        }
        return text
    }

    /// Why the PEM file at `path` gives no certificate authority to trust, or nil when it gives one.
    package static func certificateAuthorityProblem(at path: String) -> String? {
        do {
            let certificates = try NIOSSLCertificate.fromPEMFile(path)
            return certificates.isEmpty ? "\(path) holds no PEM certificate" : nil
        } catch {
            return "\(path) cannot be read as PEM certificates (\(error))"
        }
    }

    /// An error answer's words (its `error`, else the start of the body) and its machine-readable
    /// reason when it gives a known one: the body decoded once.
    static func errorBody(_ data: Data) -> (message: String, code: UbiquityWireErrorCode?) {
        let e = try? JSONDecoder().decode([String: String].self, from: data)
        return (e?["error"] ?? String(decoding: data.prefix(200), as: UTF8.self), e?["code"].flatMap(UbiquityWireErrorCode.init(rawValue:)))
    }
}
