#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import UbiquityProtocol
import HTTPMessages
import Synchronization
import PlatformIO
import SharedTables
import UbiquityBackend
import PropertyList

// Answers: JSON bodies, errors, and what a failure logs.
extension UbiquityService {
    // MARK: Answers

    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }()

    static func json(_ status: Int, _ value: some Encodable) -> ServerResponse {
        let body = (try? encoder.encode(value)).map { [UInt8]($0) } ?? Array(#"{"error":"encoding failed"}"#.utf8)
        return ServerResponse(status: status, contentType: "application/json", body: body)
    }

    /// A commit's answer (written by ``WireJSON``: the commit path's JSON by hand).
    static func json(_ status: Int, _ value: UbiquityCommitResponse) -> ServerResponse {
        ServerResponse(status: status, contentType: "application/json", body: WireJSON.encode(value))
    }

    /// A changes answer (written by ``WireJSON``).
    static func json(_ status: Int, _ value: UbiquityChangesResponse) -> ServerResponse {
        ServerResponse(status: status, contentType: "application/json", body: WireJSON.encode(value))
    }

    static func error(_ status: Int, _ message: String, code: UbiquityWireErrorCode? = nil) -> ServerResponse {
        var body = ["error": message]
        if let code { body["code"] = code.rawValue }
        var r = json(status, body)
        // The database is away: come back in a second (clients back off as well).
        if status == 503 { r.headers.append("Retry-After", "1") }
        return r
    }

    /// A backend's failure: its own status and message, or 503; every 5xx is
    /// also a log line (at most one a second, with the count of those left out).
    /// Damage the database reports while serving is a 503 saying so: an answer
    /// is the whole of what was asked or nothing.
    func unavailable(_ error: any Error) -> ServerResponse {
        let status: Int, message: String
        var code: UbiquityWireErrorCode? = nil
        if let e = error as? BackendError {
            (status, message, code) = (e.status, e.message, e.code)
        } else if "\(error)".contains("corrupt") || "\(error)".contains("malformed") {
            (status, message) = (503, "the database is damaged (\(error)); restore it from a backup")
        } else {
            (status, message) = (503, "the database is unavailable: \(error)")
        }
        if status >= 500 { logFailure(message) }
        return Self.error(status, message, code: code)
    }

    /// Logs `message` unless a failure was logged less than a second ago (counted, and said with the next).
    func logFailure(_ message: String) {
        let now = ContinuousClock.now
        let line = failureLog.withLock { state -> String? in
            if let last = state.last, now - last < .seconds(1) {
                state.skipped += 1
                return nil
            }
            defer { state = (now, 0) }
            return state.skipped > 0 ? "\(message) (and \(state.skipped) more failures in the second before)" : message
        }
        if let line { log(line) }
    }

    static func unauthorized(_ message: String) -> ServerResponse {
        var r = error(401, message)
        r.headers.append("WWW-Authenticate", "Bearer realm=\"ubiquity\"")
        return r
    }

    static func badStore(_ store: String) -> ServerResponse {
        error(400, "invalid store identifier \"\(store)\": expected 1 to 255 letters, digits, '.', '-' or '_', not starting with '.'")
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let c): "missing \"\(key.stringValue)\" at \(path(c.codingPath))"
        case DecodingError.typeMismatch(let t, let c): "expected \(t) at \(path(c.codingPath))"
        case DecodingError.valueNotFound(let t, let c): "expected \(t) at \(path(c.codingPath))"
        case DecodingError.dataCorrupted(let c): "malformed JSON at \(path(c.codingPath)): \(c.debugDescription)"
        default: "\(error)"
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the top level" : keys.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
    }
}

extension PropertyList {
    var encodedBinary: [UInt8] { (try? encoded(as: .binary, options: .init())) ?? [] }
}
