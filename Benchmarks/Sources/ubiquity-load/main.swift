// ubiquity-load: many machines watching one `ubiquity serve` at once.
//
// Starts the server (the `ubiquity` built beside this program) on a
// temporary database, opens --watchers long polls on one store (raw HTTP/1.1
// over SwiftNIO: a watcher is a connection and ~200 bytes here, so 10,000 fit
// in one process), then makes --commits commits through the HTTP transport
// and measures, for every watcher and commit, the time from the commit's
// start to the watcher's answer. Prints the percentiles, how many answers
// were missed, and the server's resident memory before and with the watchers.
//   swift build -c release --product ubiquity-load && swift build -c release --product ubiquity
//   .build/release/ubiquity-load --watchers 10000 --commits 20
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PropertyList

var watchers = 10_000
var commits = 20
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--watchers": watchers = Int(args.popFirst() ?? "") ?? watchers
    case "--commits": commits = Int(args.popFirst() ?? "") ?? commits
    default:
        FileHandle.standardError.write(Data("usage: ubiquity-load [--watchers N] [--commits N]\n".utf8))
        exit(64)
    }
}

func raiseFileLimit() {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}
raiseFileLimit()

let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
let tool = here.appendingPathComponent("ubiquity").path
guard FileManager.default.isExecutableFile(atPath: tool) else {
    print("ubiquity-load: build the server beside this program: swift build -c release --product ubiquity")
    exit(1)
}
let work = FileManager.default.temporaryDirectory.appendingPathComponent("ubiquity-load-\(getpid())").path
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: work) }

func run(_ arguments: [String]) -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = arguments
    let pipe = Pipe()
    p.standardOutput = pipe
    try? p.run()
    let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return out
}

let serverOut = work + "/serve.out"
FileManager.default.createFile(atPath: serverOut, contents: nil)
let server = Process()
server.executableURL = URL(fileURLWithPath: tool)
server.arguments = ["serve", "--data", work + "/data", "--port", "0"]
server.standardOutput = FileHandle(forWritingAtPath: serverOut)
try server.run()
defer { server.terminate() }
var url = ""
for _ in 0..<200 {
    url = (try? String(contentsOfFile: serverOut, encoding: .utf8)) ?? ""
    if url.hasSuffix("\n") { break }
    usleep(50_000)
}
url = url.trimmingCharacters(in: .whitespacesAndNewlines)
let port = Int(url.split(separator: ":").last ?? "") ?? 0
let token = run(["account", "add", "load", "--data", work + "/data"]).split(separator: "\n").last.map(String.init) ?? ""

func residentKiB(_ pid: Int32) -> Int {
    let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
}

let store = "com.load.watched"
let transport = HTTPUbiquityTransport(account: UbiquityAccount(server: url, token: token, name: "load", identifier: "load"))
var revision = try await transport.commit(store: store, UbiquityCommitRequest(changes: [
    UbiquityWireChange(key: "k", base: 0, value: UbiquityWireValue.encode(.integer(0)))])).revision
var keyRevision = revision

/// What every watcher saw: the time each revision reached it.
final class Arrivals: Sendable {
    let seen = NIOLockedValueBox<[Int64: [UInt64]]>([:])
    let armed = NIOLockedValueBox(0)
    func record(_ revision: Int64, at t: UInt64) { seen.withLockedValue { $0[revision, default: []].append(t) } }
    func count(_ revision: Int64) -> Int { seen.withLockedValue { $0[revision]?.count ?? 0 } }
    func times(_ revision: Int64) -> [UInt64] { seen.withLockedValue { $0[revision] ?? [] } }
}
let arrivals = Arrivals()

@Sendable func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// One watcher: a long poll, answered, parsed for its revision, asked again.
final class Watcher: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    var buffer = ByteBuffer()
    var after: Int64
    let path: String
    let headers: String
    let arrivals: Arrivals

    init(after: Int64, path: String, headers: String, arrivals: Arrivals) {
        self.after = after
        self.path = path
        self.headers = headers
        self.arrivals = arrivals
    }

    func ask(_ context: ChannelHandlerContext) {
        let request = "GET \(path)?after=\(after)&wait=30 HTTP/1.1\r\n\(headers)\r\n"
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: request)), promise: nil)
    }

    func channelActive(context: ChannelHandlerContext) {
        ask(context)
        arrivals.armed.withLockedValue { $0 += 1 }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        buffer.writeBuffer(&incoming)
        while let text = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes),
            let headEnd = text.range(of: "\r\n\r\n") {
            let head = text[..<headEnd.lowerBound].lowercased()
            guard let cl = head.range(of: "content-length: ") else { return }
            let length = Int(head[cl.upperBound...].prefix { $0.isNumber }) ?? 0
            let headBytes = text.utf8.distance(from: text.startIndex, to: headEnd.upperBound)
            guard buffer.readableBytes >= headBytes + length else { return }
            buffer.moveReaderIndex(forwardBy: headBytes)
            let body = buffer.readString(length: length) ?? ""
            buffer.discardReadBytes()
            if let r = body.range(of: "\"revision\":") {
                let value = Int64(body[r.upperBound...].prefix { $0.isNumber }) ?? after
                if value > after {
                    after = value
                    arrivals.record(value, at: now())
                }
            }
            ask(context)
        }
    }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
let path = "/v1/stores/\(store)/changes"
let headers = "Host: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n"
let startRevision = revision
let bootstrap = ClientBootstrap(group: group)
    .channelOption(.socketOption(.so_reuseaddr), value: 1)
    .channelInitializer { [arrivals] channel in
        channel.pipeline.addHandler(Watcher(after: startRevision, path: path, headers: headers, arrivals: arrivals))
    }

let baseline = residentKiB(server.processIdentifier)
var channels: [Channel] = []
let started = Date()
var failed = 0
while channels.count + failed < watchers {
    let batch = min(250, watchers - channels.count - failed)
    let futures = (0..<batch).map { _ in bootstrap.connect(host: "127.0.0.1", port: port) }
    for f in futures {
        do { channels.append(try await f.get()) } catch { failed += 1 }
    }
}
// Every watcher's long poll is in flight before the first commit.
while arrivals.armed.withLockedValue({ $0 }) < channels.count { try await Task.sleep(for: .milliseconds(50)) }
try await Task.sleep(for: .seconds(2))
let withWatchers = residentKiB(server.processIdentifier)
print("watchers: \(channels.count) connected in \(String(format: "%.1f", Date().timeIntervalSince(started))) s (\(failed) failed)")

var latencies: [Double] = []
var missed = 0
for i in 1...commits {
    let t0 = now()
    let response = try await transport.commit(store: store, UbiquityCommitRequest(changes: [
        UbiquityWireChange(key: "k", base: keyRevision, value: UbiquityWireValue.encode(.integer(.init(Int64(i)))))]))
    keyRevision = response.revision
    revision = response.revision
    let deadline = Date().addingTimeInterval(10)
    while arrivals.count(revision) < channels.count, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
    let times = arrivals.times(revision)
    missed += channels.count - times.count
    latencies += times.map { Double($0 &- t0) / 1e6 }
    // Let every watcher ask again before the next commit.
    try await Task.sleep(for: .milliseconds(500))
}
latencies.sort()
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}
print(String(format: "propagation over %d watchers × %d commits: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms; missed %d",
             channels.count, commits, percentile(latencies, 0.5), percentile(latencies, 0.9), percentile(latencies, 0.99),
             latencies.last ?? .nan, missed))
print("server resident memory: \(baseline / 1024) MiB idle, \(withWatchers / 1024) MiB with \(channels.count) watchers (\(channels.count > 0 ? (withWatchers - baseline) * 1024 / channels.count : 0) bytes each)")
for c in channels { c.close(promise: nil) }
try await group.shutdownGracefully()
