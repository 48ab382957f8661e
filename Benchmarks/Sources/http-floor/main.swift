// http-floor: the bare HTTP floor of the sync server's commits (issue 42).
//
// A Hummingbird application on the same stack as `ubiquity serve` (HTTP/1.1,
// keep-alive, one event-loop group over the machine's cores) whose commit
// route reads the whole request body and answers 200 with the smallest
// answer `ubiquity-load`'s writers accept (the change applied at the next
// revision): no token, no database, no JSON parsed. `ubiquity-load --floor`
// starts it beside the real server and measures both in the same run.
// Prints its base URL on a line of its own once it listens.
import Glibc
import Hummingbird
import NIOCore
import Synchronization

let revision = Atomic<Int64>(0)
let router = Router()
router.post("/v1/stores/:store/commit") { request, _ -> Response in
    let body = try await request.body.collect(upTo: 1 << 20)
    let next = revision.add(1, ordering: .relaxed).newValue
    let answer = #"{"results":[{"status":"applied","entry":{"key":"k","revision":\#(next)}}],"revision":\#(next),"read":\#(body.readableBytes)}"#
    var buffer = ByteBuffer()
    buffer.writeString(answer)
    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: buffer))
}
let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: 0)),
    onServerRunning: { channel in
        // Written straight to the file descriptor: stdout's buffer is not flushed until exit.
        let line = Array("http://127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }
)
try await app.runService()
