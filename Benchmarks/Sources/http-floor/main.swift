// http-floor: the bare HTTP floor of the sync server's commits (issue 42).
//
// A Hummingbird application on the same stack as `ubiquity serve` (HTTP/1.1,
// keep-alive, one event-loop group over the machine's cores) whose commit
// route reads the whole request body and answers 200 with the smallest
// answer `ubiquity-load`'s writers accept (the change applied at the next
// revision): no token, no database, no JSON parsed. `ubiquity-load --floor`
// starts it beside the real server and measures both in the same run.
// Prints its base URL on a line of its own once it listens.
import FloorServer
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
try await serveOnLoopback(router)
