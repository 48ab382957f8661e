import HTTPGuards
import HTTPMessages
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// The one translation between Hummingbird and the framework-free request
/// and response both servers' applications speak, exercised in-process.
@Suite("Hummingbird adapter", .timeLimit(.minutes(10)))
struct HummingbirdAdapterTests {
    private func app(_ answer: @escaping @Sendable (ServerRequest) -> ServerResponse) -> some ApplicationProtocol {
        let router = Router()
        router.on("/{path}", method: .get) { request, _ in
            HummingbirdAdapter.response(answer(HummingbirdAdapter.request(request)), headers: [.cacheControl: "no-store"])
        }
        router.on("/{path}", method: .post) { request, _ in
            HummingbirdAdapter.response(answer(HummingbirdAdapter.request(request)), headers: [.cacheControl: "no-store"])
        }
        return Application(router: router)
    }

    @Test("a request's method, path, raw query and every header reach the application; names match in any case")
    func requestHead() async throws {
        let seen = Locked<ServerRequest?>(nil)
        try await app { request in
            seen.set(request)
            return ServerResponse(status: 200, contentType: "text/plain")
        }.test(.router) { client in
            try await client.execute(uri: "/page?a=1&b=x%20y", method: .get,
                                     headers: [.origin: "http://localhost:8080", .cookie: "k=v; settings_access=t0ken",
                                               .contentType: "text/plain"]) { _ in }
        }
        let request = try #require(seen.value)
        #expect(request.method == "GET" && request.path == "/page" && request.query == "a=1&b=x%20y")
        #expect(request.queryFields["b"] == "x y")
        #expect(request.headers["ORIGIN"] == "http://localhost:8080" && request.origin == "http://localhost:8080")
        #expect(request.cookie("settings_access") == "t0ken" && request.cookie("k") == "v" && request.cookie("none") == nil)
        #expect(request.contentType == "text/plain" && request.body.isEmpty)
    }

    @Test("an answer's status, content type and fields are sent over the server's own fields")
    func responseFields() async throws {
        try await app { _ in
            ServerResponse(status: 303, contentType: "text/plain; charset=utf-8",
                           headers: ["Location": "/apps/x", "Set-Cookie": "a=b; HttpOnly"], body: Array("See /apps/x\n".utf8))
        }.test(.router) { client in
            try await client.execute(uri: "/x", method: .post) { response in
                #expect(response.status.code == 303)
                #expect(response.headers[.location] == "/apps/x" && response.headers[.setCookie] == "a=b; HttpOnly")
                #expect(response.headers[.contentType] == "text/plain; charset=utf-8" && response.headers[.cacheControl] == "no-store")
                #expect(String(buffer: response.body) == "See /apps/x\n")
            }
        }
    }

    @Test("a field the answer gives twice is sent twice, in order; one it gives once replaces the server's own")
    func repeatedFields() async throws {
        try await app { _ in
            var headers = HeaderFields()
            headers.append("Set-Cookie", "a=1")
            headers.append("Set-Cookie", "b=2")
            headers.append("Cache-Control", "max-age=5")
            return ServerResponse(status: 200, contentType: "text/plain", headers: headers)
        }.test(.router) { client in
            try await client.execute(uri: "/x", method: .get) { response in
                #expect(response.headers[values: .setCookie] == ["a=1", "b=2"])
                #expect(response.headers[values: .cacheControl] == ["max-age=5"])
            }
        }
    }

    @Test("a stream's chunks are written in order, and a chunk is converted to a buffer once for every connection")
    func streams() async throws {
        let shared = ResponseChunk(Array("id: 1\ndata: {}\n\n".utf8))
        try await app { _ in
            ServerResponse(status: 200, contentType: "text/event-stream", stream: ResponseStream { send in
                try? await send(shared)
                try? await send(ResponseChunk(Array("id: 2\ndata: {}\n\n".utf8)))
            })
        }.test(.router) { client in
            for _ in 0..<2 {
                try await client.execute(uri: "/events", method: .get) { response in
                    #expect(response.headers[.contentType] == "text/event-stream")
                    #expect(String(buffer: response.body) == "id: 1\ndata: {}\n\nid: 2\ndata: {}\n\n")
                }
            }
        }
        let first = HummingbirdAdapter.buffer(of: shared), again = HummingbirdAdapter.buffer(of: shared)
        let a = first.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
        let b = again.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
        #expect(a == b && a != 0)
    }
}
