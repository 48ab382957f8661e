import Foundation
import HTTPMessages
import PropertyList
import Testing
import TestSupport
import UbiquityProtocol
import UbiquityBackend
@testable import UbiquityServer

/// A commit's total at its boundary (issue 39): values totalling exactly a store's size plus one
/// value (2 MiB) pass the body's checks; more is refused with 413 before the rest of the body
/// is decoded (a malformed value after it is never reached).
@Suite("ubiquity serve: a commit's 2 MiB total, at its boundary", .offThePool, .timeLimit(.minutes(10)))
struct CommitLimitTests {
    /// A data value whose binary property list is exactly `size` bytes.
    static func value(encodedSize size: Int) -> PropertyList {
        var n = size
        while true {
            let v = PropertyList.data(Data(repeating: 7, count: n))
            let encoded = v.encodedBinary.count
            if encoded == size { return v }
            n -= encoded - size
        }
    }

    static func request(_ values: [String?]) -> ServerRequest {
        let changes = values.enumerated().map { i, v in
            #"{"key":"k\#(i)","base":0,"value":"\#(v ?? "not base64!")"}"#
        }
        return ServerRequest(method: "POST", path: "/v1/stores/com.example.total/commit", body: Array(#"{"changes":[\#(changes.joined(separator: ","))]}"#.utf8))
    }

    @Test("values totalling exactly 2 MiB pass; one value more is refused (413) before a malformed value after it is read")
    func total() throws {
        let limit = UbiquityLimits.maximumTotalBytes + UbiquityLimits.maximumValueBytes
        #expect(limit == 2 << 20)
        let half = UbiquityWireValue.encode(Self.value(encodedSize: limit / 2))
        // Exactly the limit: the body's checks pass (the store's own limits are the backend's).
        switch UbiquityService.validated(Self.request([half, half]), store: "com.example.total") {
        case .changes(let changes): #expect(changes.count == 2 && changes.map(\.size).reduce(0, +) == limit)
        case .refused(let answer): Issue.record("refused at the limit: \(answer.status)")
        }
        // Past it by one small value, then a value that is not base64: 413, the malformed one never read.
        let small = UbiquityWireValue.encode(.integer(1))
        switch UbiquityService.validated(Self.request([half, half, small, nil]), store: "com.example.total") {
        case .changes: Issue.record("a commit past the total was accepted")
        case .refused(let answer):
            #expect(answer.status == 413)
            #expect(String(decoding: answer.body, as: UTF8.self).contains("the commit's values total more than \(UbiquityLimits.maximumTotalBytes) bytes"))
        }
        // The malformed value alone, within the total: 400, so the 413 above came first.
        switch UbiquityService.validated(Self.request([small, nil]), store: "com.example.total") {
        case .changes: Issue.record("a malformed value was accepted")
        case .refused(let answer): #expect(answer.status == 400)
        }
    }
}

@Suite("ubiquity serve: when to come back", .offThePool, .timeLimit(.minutes(10)))
struct RetryAfterTests {
    @Test("a 503 (the database is away) says Retry-After: 1; no other answer says it")
    func retryAfter() {
        #expect(UbiquityService.error(503, "the database is away").headers["Retry-After"] == "1")
        for status in [400, 401, 404, 409, 413, 429, 500] {
            #expect(UbiquityService.error(status, "no").headers["Retry-After"] == nil, "\(status)")
        }
    }
}
