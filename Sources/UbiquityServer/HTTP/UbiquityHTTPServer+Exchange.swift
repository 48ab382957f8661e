import HTTPGuards
import Hummingbird
import Logging
import Tracing
import UbiquityBackend
import SharedTables
import Synchronization

extension UbiquityHTTPServer {
    /// One exchange's request id, route and start, for its span, metrics and log line.
    final class Exchange: Sendable {
        let started = ContinuousClock.now
        let id: String
        let route: String
        let method: String
        let path: String
        let log: Logger
        let current = CurrentRequest()

        @inline(never)
        init(_ request: Request, log: Logger) {
            let given = request.headers[.requestID] ?? ""
            id = given.count <= 64 && !given.isEmpty && given.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) })
                ? given : newRequestID()
            method = request.method.rawValue
            path = request.uri.path
            route = routeLabel(method, path)
            self.log = log
            // At `trace`, a line as each request begins too (its body may still be on its way).
            if log.logLevel <= .trace {
                log.trace("request started", metadata: ["request_id": .string(id), "method": .string(method), "route": .string(route)])
            }
        }

        /// `body` in a span named after the route.
        func traced(_ body: (CurrentRequest) async throws -> Response) async throws -> Response {
            try await withSpan("HTTP \(method) \(route)", ofKind: .server) { span in
                span.attributes["http.request.method"] = method
                span.attributes["ubiquity.request_id"] = id
                let response = try await body(current)
                span.attributes["http.response.status_code"] = Int(response.status.code)
                return response
            }
        }

        /// The id sent back, the request's metrics, and its log line: at `debug`, or `error`
        /// for a 5xx answer. Never a token.
        @inline(never)
        func finish(_ response: inout Response) {
            response.headers[.requestID] = id
            let duration = ContinuousClock.now - started
            let status = Int(response.status.code)
            ServerMetrics.request(route: route, status: status, duration: duration)
            let level: Logger.Level = status >= 500 ? .error : .debug
            guard log.logLevel <= level else { return }
            var metadata: Logger.Metadata = [
                "request_id": .string(id), "method": .string(method), "route": .string(route),
                "status": .stringConvertible(status), "duration_ms": .string(String(Double(duration.nanoseconds / 1000) / 1000)),
            ]
            if let account = current.account.withLock({ $0 }) { metadata["account"] = .string(account) }
            let parts = path.split(separator: "/")
            if parts.count >= 4, parts[1] == "stores" { metadata["store"] = .string(String(parts[2])) }
            log.log(level: level, "request", metadata: metadata)
        }
    }
}
