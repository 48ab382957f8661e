/// Reads a `text/event-stream` body as it arrives (the WHATWG rules that the
/// sync protocol's event stream needs): lines end in LF, CRLF or CR; a blank
/// line ends an event; `data:` lines are joined with LF; `event:` names the
/// event; lines starting with `:` are comments; other fields are ignored.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for event in try parser.feed(Array("id: 3\ndata: {}\n\n".utf8)) { print(event.data) }   // "{}"
/// ```
struct ServerSentEventParser {
    /// One event: its name (`message` unless given) and its data.
    struct Event: Equatable {
        var name: String
        var data: String
    }

    /// The longest line kept while waiting for its end (a changes answer is
    /// at most a few megabytes of JSON); a longer one is an error, not memory.
    static let maximumLine = 16 << 20
    /// The most data one event may gather over its `data:` lines; a server
    /// that never sends the blank line ending an event cannot grow it further.
    static let maximumEvent = 16 << 20

    enum ParseError: Error, Equatable {
        case lineTooLong(Int)
        case eventTooLarge(Int)
    }

    var line: [UInt8] = []
    var data: [UInt8] = []
    var hasData = false
    var name = ""
    /// The last byte was a CR (an LF right after it belongs to the same line end).
    var afterCR = false

    /// The events that `bytes` completes.
    mutating func feed(_ bytes: some Sequence<UInt8>) throws(ParseError) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0A, 0x0D:
                afterCR = byte == 0x0D
                if let event = try endLine() { events.append(event) }
            default:
                guard line.count < Self.maximumLine else { throw .lineTooLong(line.count) }
                line.append(byte)
            }
        }
        return events
    }

    /// Handles the finished line; an event when it was blank and data came before it.
    mutating func endLine() throws(ParseError) -> Event? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            defer { data.removeAll(keepingCapacity: true); hasData = false; name = "" }
            guard hasData else { return nil }
            return Event(name: name.isEmpty ? "message" : name, data: String(decoding: data, as: UTF8.self))
        }
        if line.first == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let field = String(decoding: line[..<colon], as: UTF8.self)
        var value = line[colon...].dropFirst()
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch field {
        case "data":
            guard data.count + value.count + 1 <= Self.maximumEvent else { throw .eventTooLarge(data.count + value.count + 1) }
            if hasData { data.append(0x0A) }
            data += value
            hasData = true
        case "event":
            name = String(decoding: value, as: UTF8.self)
        default:
            break
        }
        return nil
    }
}
