import HTTPMessages
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import InMemoryTracing
import Logging
import Testing
import PropertyList
import TestSupport
import Tracing
import UbiquityProtocol
import UbiquitySQLite
@testable import UbiquityServer

/// Each exchange of the sync server runs in a span when an operator bootstraps a tracer, and
/// answers with its request id in every case. The server takes no span's frames when no tracer
/// is bootstrapped (none is linked by default): this suite is the one place that bootstraps one,
/// once for the whole test process.
@Suite("The request's span and id", .timeLimit(.minutes(10)))
struct RequestSpanTests {
    /// The tracer of this test process (bootstrapping is once per process).
    static let tracer: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        // As a server does when it starts, after its process bootstrapped a tracer.
        ServerTracing.refresh()
        return tracer
    }()

    private func app() -> some ApplicationProtocol {
        let router = Router()
        let log = Logger(label: "test")
        router.on("/v1/events", method: .get) { request, _ in
            try await UbiquityHTTPServer.observed(request, log: log) { _ in Response(status: .ok) }
        }
        return Application(router: router)
    }

    @Test("with a tracer bootstrapped, an exchange is a server span named after its route, with its method, id and status")
    func spanOfAnExchange() async throws {
        let tracer = Self.tracer
        try await app().test(.router) { client in
            try await client.execute(uri: "/v1/events", method: .get, headers: [HTTPField.Name("X-Request-Id")!: "probe-1"]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[HTTPField.Name("X-Request-Id")!] == "probe-1")
            }
        }
        let span = try #require(tracer.finishedSpans.first { $0.attributes["ubiquity.request_id"]?.toSpanAttribute() == "probe-1" })
        #expect(span.operationName == "HTTP GET events")
        #expect(span.kind == .server)
        #expect(span.attributes["http.request.method"]?.toSpanAttribute() == "GET")
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
    }

    @Test("a request id that is not a plain word of at most 64 characters is replaced by one of the server's")
    func requestIdReplaced() async throws {
        try await app().test(.router) { client in
            for given in ["has space", String(repeating: "a", count: 65), "a/b"] {
                try await client.execute(uri: "/v1/events", method: .get, headers: [HTTPField.Name("X-Request-Id")!: given]) { response in
                    let id = try #require(response.headers[HTTPField.Name("X-Request-Id")!])
                    #expect(id != given && id.utf8.count == 16 && id.allSatisfy(\.isHexDigit))
                }
            }
        }
    }

    @Test("with a tracer bootstrapped, a commit's database work is a span with its store and its number of changes")
    func spanOfACommit() async throws {
        let tracer = Self.tracer
        let folder = try TemporaryFolder("commit-span")
        let backend = try await SQLiteBackend.open(directory: folder.path)
        let service = UbiquityService(backend: backend, allowedHosts: nil)
        let token = UbiquityService.newToken()
        _ = try await backend.createAccount(name: "alice", tokenName: "default", tokenHash: UbiquityService.hash(token: token))
        let value = UbiquityWireValue.encode(.integer(1))
        let body = #"{"changes":[{"key":"a","base":0,"value":"\#(value)"},{"key":"b","base":0,"value":"\#(value)"}]}"#
        let answer = await service.respond(to: ServerRequest(method: "POST", path: "/v1/stores/com.example.traced/commit",
                                                             headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                                                             body: Array(body.utf8)))
        #expect(answer.status == 200)
        let span = try #require(tracer.finishedSpans.first { $0.attributes["ubiquity.store"]?.toSpanAttribute() == "com.example.traced" })
        #expect(span.operationName == "database commit")
        #expect(span.attributes["ubiquity.changes"]?.toSpanAttribute() == 2)
        try await backend.close()
    }
}
