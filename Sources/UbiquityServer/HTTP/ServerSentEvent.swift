package import HTTPMessages

/// The `text/event-stream` framing of the sync protocol's event stream
/// (`GET /v1/stores/{store}/events`, proposal 0011).
///
/// Each event carries one changes answer as JSON on one `data:` line (the
/// encoder writes no line breaks), with the revision it brings the client to
/// as its `id:`. A failure mid-stream is an `error` event whose data is the
/// usual `{"error": …}` body; the stream ends after it.
package enum ServerSentEvent {
    /// `id: <revision>\ndata: <data>\n\n`, in a chunk that every watcher's
    /// write shares (a commit's event is made once, and converted to the
    /// server's buffer once, not once per watcher).
    package static func frame(revision: Int64, data: [UInt8]) -> ResponseChunk {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 32)
        out.append(contentsOf: "id: \(revision)\ndata: ".utf8)
        out.append(contentsOf: data)
        out.append(contentsOf: "\n\n".utf8)
        return ResponseChunk(out)
    }

    /// `event: error\ndata: <data>\n\n`.
    package static func error(data: [UInt8]) -> ResponseChunk {
        ResponseChunk(Array("event: error\ndata: ".utf8) + data + Array("\n\n".utf8))
    }
}
