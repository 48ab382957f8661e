import Foundation
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing
import TestSupport

/// What an operator sees: log lines (logfmt, JSON), request ids, Prometheus metrics on their own listener.
@Suite("ubiquity serve: logs and metrics", .offThePool, .exclusive(.servers), .timeLimit(.minutes(5)))
struct ObservabilityTests {
    /// A free loopback port (bound, then released).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("at the default level: start and stop lines only, no line per request, never a token", .requires(.curl))
    func defaultLevel() async throws {
        let server = try SyncServer(.sqlite)
        let token = try server.addAccount("alice")
        let t = HTTPUbiquityTransport(account: server.account(token: token))
        _ = try await commit(t, "com.example.logs", "k", base: 0, .string("v"))
        #expect(try rawRequest(server, path: "/healthz").status == 200)
        server.stop()
        let lines = server.logText.split(separator: "\n")
        #expect(lines.contains { $0.contains("level=info msg=serving") && $0.contains("database=sqlite") }, "\(lines)")
        #expect(lines.contains { $0.contains("msg=stopping") } && lines.contains { $0.contains("msg=stopped") }, "\(lines)")
        #expect(!lines.contains { $0.contains("msg=request") }, "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("ts=") && $0.contains(" level=") }, "\(lines)")
        #expect(!server.logText.contains(token))
    }

    @Test("debug and JSON: one line per request with its id (the client's, sent back), account, store, status and duration", .requires(.curl))
    func requestLines() async throws {
        let server = try SyncServer(.sqlite, extraArguments: ["--log-level", "debug", "--log-format", "json"])
        let token = try server.addAccount("alice")
        let t = HTTPUbiquityTransport(account: server.account(token: token))
        _ = try await commit(t, "com.example.logs", "k", base: 0, .string("v"))
        // A request id of the client's is kept and sent back; an unusable one is replaced.
        let headers = try runProcess("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", "-H", "Authorization: Bearer \(token)",
                                                       "-H", "X-Request-Id: trace-42",
                                                       server.url + "/v1/stores/com.example.logs/changes?after=0"]).stdout
        #expect(headers.lowercased().contains("x-request-id: trace-42"), "\(headers)")
        #expect(try rawRequest(server, path: "/v1/account", headers: ["Authorization": "Bearer nope"]).status == 401)
        server.stop()
        var requests: [[String: String]] = []
        for line in server.logText.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], "not a JSON line: \(line)")
            #expect(object["ts"] != nil && object["level"] != nil && object["msg"] != nil)
            if object["msg"] == "request" { requests.append(object) }
        }
        let commitLine = try #require(requests.first { $0["route"] == "stores/commit" })
        #expect(commitLine["status"] == "200" && commitLine["store"] == "com.example.logs" && commitLine["account"]?.isEmpty == false)
        #expect(Double(commitLine["duration_ms"] ?? "") != nil && commitLine["request_id"]?.count == 16, "\(commitLine)")
        #expect(requests.contains { $0["request_id"] == "trace-42" && $0["route"] == "stores/changes" }, "\(requests)")
        #expect(requests.contains { $0["status"] == "401" && $0["account"] == nil }, "\(requests)")
        #expect(!server.logText.contains(token))
    }

    @Test("metrics on their own loopback listener, valid Prometheus text: commits, conflicts, quota refusals, open streams, requests, build info",
          .requires(.curl, .prometheusParser))
    func metrics() async throws {
        let port = Self.freePort()
        let server = try SyncServer(.sqlite, extraArguments: ["--metrics", "127.0.0.1:\(port)", "--quota-stores", "1"])
        let token = try server.addAccount("alice")
        let metricsServer = MetricsEndpoint(port: port)
        // Before any commit, every outcome (and quota) is a series at 0: rate() and alerts work from the start.
        var initial: [String: [String: Double]] = [:]
        #expect(await settle(10) {
            initial = (try? metricsServer.scrape()) ?? [:]
            return initial["ubiquity_build_info"] != nil
        }, "the metrics listener never answered")
        for outcome in ["applied", "conflict", "quota", "unavailable", "unauthorized", "invalid"] {
            #expect(initial["ubiquity_commits_total"]?["outcome=\(outcome)"] == 0, "\(outcome): \(initial)")
        }
        for quota in ["bytes", "stores", "other"] { #expect(initial["ubiquity_quota_refusals_total"]?["quota=\(quota)"] == 0, "\(initial)") }
        #expect(initial["ubiquity_conflicts_total"]?[""] == 0, "\(initial)")
        // A commit that breaks the protocol's rules (no change): refused before the database, counted as invalid.
        let raw = try RawConnection(port: server.port)
        let empty = #"{"changes":[]}"#
        raw.send(RawConnection.commitHead(store: "com.example.m", token: token, length: empty.utf8.count) + empty)
        #expect(raw.head()?.hasPrefix("HTTP/1.1 400") == true)
        let t = HTTPUbiquityTransport(account: server.account(token: token))
        _ = try await commit(t, "com.example.m", "k", base: 0, .string("v"))
        _ = try await commit(t, "com.example.m", "k", base: 0, .string("stale"))     // a conflict
        _ = try await commit(t, "com.example.other", "k", base: 0, .string("v"))     // the stores quota
        let stream = Received()
        let follower = stream.follow(t.events(store: "com.example.m", after: 0))
        defer { follower.cancel() }
        #expect(await settle(60) { stream.all.count >= 1 }, "the stream answered nothing")
        var parsed: [String: [String: Double]] = [:]
        #expect(await settle(10) {
            parsed = (try? metricsServer.scrape()) ?? [:]
            return parsed["ubiquity_event_streams"]?[""] == 1
        }, "\(parsed)")
        #expect(parsed["ubiquity_commits_total"]?["outcome=applied"] == 1, "\(parsed)")
        #expect(parsed["ubiquity_commits_total"]?["outcome=conflict"] == 1, "\(parsed)")
        #expect(parsed["ubiquity_commits_total"]?["outcome=invalid"] == 1, "\(parsed)")
        #expect(parsed["ubiquity_commits_total"]?["outcome=unavailable"] == 0, "\(parsed)")
        #expect(parsed["ubiquity_conflicts_total"]?[""] == 1, "\(parsed)")
        #expect(parsed["ubiquity_quota_refusals_total"]?["quota=stores"] == 1, "\(parsed)")
        #expect(parsed["ubiquity_commit_duration_seconds_count"]?[""] == 3, "\(parsed)")
        #expect(parsed["ubiquity_build_info"]?.keys.contains { $0.hasPrefix("version=") } == true, "\(parsed)")
        #expect((parsed["ubiquity_requests_total"]?["route=stores/commit,status=200"] ?? 0) >= 2, "\(parsed)")
        // Only its own Host names, only /metrics.
        #expect(try metricsServer.status(path: "/metrics", host: "evil.example") == 421)
        #expect(try metricsServer.status(path: "/other", host: "127.0.0.1") == 404)
        // Beyond loopback it is refused at start.
        let refused = try ubiquity(["serve", "--metrics", "0.0.0.0:9470", "--data", server.folder.path + "/x"], environment: server.environment)
        #expect(refused.status == 64 && refused.stderr.contains("loopback only"), "\(refused.stderr)")
    }
}

extension ObservabilityTests {
    @Test("the metrics listener's connections are capped: a flood of idle sockets neither grows the server's descriptors nor stops a scrape",
          .requires(.curl))
    func metricsFlood() async throws {
        let port = Self.freePort()
        let server = try SyncServer(.sqlite, extraArguments: ["--metrics", "127.0.0.1:\(port)"])
        let metricsServer = MetricsEndpoint(port: port)
        #expect(await settle(10) { (try? metricsServer.status(path: "/metrics", host: "127.0.0.1")) == 200 }, "the metrics listener never answered")
        let pid = try #require(server.process?.processIdentifier)
        func descriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1 }
        let before = descriptors()
        // 300 connections that send half a head and wait: another local user holding sockets open.
        let flood = try (0..<300).map { _ in
            let connection = try RawConnection(port: port)
            connection.send(Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
            return connection
        }
        defer { withExtendedLifetime(flood) {} }  // open until the scrape below
        // The listener keeps at most its cap: the rest are closed by it (they read end-of-file).
        var closed = 0
        #expect(await settle(30) {
            closed = flood.filter(ServerDefaultsTests.isClosed).count
            return closed >= flood.count - 32
        }, "only \(closed) of \(flood.count) idle connections were closed; before the cap, none was")
        #expect(descriptors() <= before + 32 + 4, "the server holds \(descriptors()) descriptors, \(before) before the flood")
        // A scrape is still answered during the flood.
        #expect(try metricsServer.status(path: "/metrics", host: "127.0.0.1") == 200)
    }
}

/// The metrics listener, scraped with curl and parsed by `Scripts/check_metrics.py`.
struct MetricsEndpoint {
    let port: Int

    func scrape() throws -> [String: [String: Double]] {
        let fetched = try runProcess("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(port)/metrics"])
        guard fetched.status == 0 else { return [:] }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/check_metrics.py").path
        let check = try runProcess(Requirement.pythonPath ?? "/usr/bin/python3", [script], input: fetched.stdoutData)
        #expect(check.status == 0, "not valid Prometheus text: \(check.stderr)")
        return (try JSONSerialization.jsonObject(with: check.stdoutData) as? [String: [String: Double]]) ?? [:]
    }

    func status(path: String, host: String) throws -> Int {
        let r = try runProcess("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: \(host)", "http://127.0.0.1:\(port)\(path)"])
        return Int(r.stdout) ?? 0
    }
}
