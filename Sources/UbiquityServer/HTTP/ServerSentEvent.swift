package import HTTPMessages

/// The `text/event-stream` framing of the sync protocol's event streams
/// (`GET /v1/stores/{store}/events` and, for several stores, `GET /v1/events`; proposal 0011).
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

    /// The same event in a stream of several stores (`GET /v1/events`): the JSON object in
    /// `data` begins with the store it answers for, `{"store":"<store>",…}`. `store` is a
    /// valid store identifier (letters, digits, `.`, `-`, `_`: nothing JSON escapes) and
    /// `data` a JSON object.
    package static func frame(store: String, revision: Int64, data: [UInt8]) -> ResponseChunk {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + store.utf8.count + 48)
        out.append(contentsOf: "id: \(revision)\ndata: {\"store\":\"".utf8)
        out.append(contentsOf: store.utf8)
        out.append(UInt8(ascii: "\""))
        // The object's own members follow, after a comma unless it has none.
        let members = data.dropFirst()
        if members.first != UInt8(ascii: "}") { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: members)
        out.append(contentsOf: "\n\n".utf8)
        return ResponseChunk(out)
    }

    /// `event: error\ndata: <data>\n\n`.
    package static func error(data: [UInt8]) -> ResponseChunk {
        ResponseChunk(Array("event: error\ndata: ".utf8) + data + Array("\n\n".utf8))
    }
}
