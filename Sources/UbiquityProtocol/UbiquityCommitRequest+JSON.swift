extension UbiquityCommitRequest {
    /// The request as JSON, written by hand: `{"changes":[{"key":…,"base":…,"value":…}]}`, a
    /// removal's `value` left out, strings escaped as RFC 8259 asks (`/` as it is).
    ///
    /// What `JSONEncoder` makes of the same request, decoded, is the same request; this is the
    /// shape the server's fast reader takes (`WireJSON`), without the encoder's boxing of every
    /// value: a fleet's agent, which commits a report per machine, spent a twentieth of its CPU
    /// in `JSONEncoder` (issue 41).
    ///
    /// ```swift
    /// let request = UbiquityCommitRequest(changes: [UbiquityWireChange(key: "a", base: 0, value: "CAE=")])
    /// request.jsonBytes   // {"changes":[{"key":"a","base":0,"value":"CAE="}]}
    /// ```
    package var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 + changes.reduce(0) { $0 + $1.key.utf8.count + ($1.value?.utf8.count ?? 0) + 40 })
        out.append(contentsOf: #"{"changes":["#.utf8)
        for (i, change) in changes.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            UbiquityWireJSON.appendObject(key: change.key, "base", change.base, value: change.value, to: &out)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}
