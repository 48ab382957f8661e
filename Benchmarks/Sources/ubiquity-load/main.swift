// ubiquity-load: many machines watching one `ubiquity serve` at once.
//
// Starts the server (the `ubiquity` built beside this program) on a
// temporary database, opens --watchers event streams (or long polls) on one store (raw HTTP/1.1
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
var mode = "watch"
var postgres: String? = nil
var instances = 1
var writers = 32
var storeCount = 1
var fill = 0
var remoteWatchers = false
var streaming = true
var loadThreads = 1
var rawClient = true
var shutdown = false
var dataDirectory: String? = nil
var backupTo: String? = nil
var floor = false
var floorRounds = 1
let stopAsking = NIOLockedValueBox(false)
var args = CommandLine.arguments.dropFirst()
let usage = """
    usage: ubiquity-load [--mode watch|commits] [--postgres URL] [--instances N] [--protocol events|poll]
                         [--watchers N] [--commits N] [--writers N] [--stores N] [--fill N] [--threads N]
                         [--client raw|library]
      watch:   --watchers watchers spread over the instances; --commits commits through the first;
               the time from each commit to each watcher's answer. A watcher holds an event stream
               (GET …/events, the client's way; the default) or makes long polls (--protocol poll).
      commits: --writers concurrent clients (spread over the instances) make --commits acknowledged
               commits in all, over --stores stores; acknowledged writes per second and commit latency.
      --client (commits): raw (the default) speaks HTTP/1.1 itself, a connection per writer on one
               thread of this program, so the server and the database keep the machine's other
               cores; library commits through OpenDefaultsUbiquityHTTP's transport (AsyncHTTPClient and
               JSONEncoder/JSONDecoder: ~3 times this program's CPU per write).
      --remote-watchers: watchers only on the instances other than the one committed through.
      --data DIR: an existing SQLite folder instead of a new one (kept afterwards).
      --backup-to FILE (commits, SQLite): `ubiquity backup` into FILE while the commits run; its duration.
      --shutdown (watch): after the commits, SIGTERM to the first server with every watcher connected;
               the time until it exits (every stream ended, the data folder released).
      --threads N: the watchers' threads in this program (default 1: the server keeps the other cores).
      --fill N (PostgreSQL only, needs psql): first load N stores of 100 keys into the database.
      --floor (commits, raw client): then the same writers against http-floor (built beside this
               program: a Hummingbird route that reads the body and answers 200), and the ratio.
      --rounds R (with --floor): R interleaved rounds instead, each --commits/R commits then as many
               requests to the floor, both servers up throughout; each round's ratio and their median.

    """
while let a = args.popFirst() {
    switch a {
    case "--watchers": watchers = Int(args.popFirst() ?? "") ?? watchers
    case "--shutdown": shutdown = true
    case "--floor": floor = true
    case "--rounds": floorRounds = max(1, Int(args.popFirst() ?? "") ?? 1)
    case "--data": dataDirectory = args.popFirst()
    case "--backup-to": backupTo = args.popFirst()
    case "--commits": commits = Int(args.popFirst() ?? "") ?? commits
    case "--mode": mode = args.popFirst() ?? mode
    case "--postgres": postgres = args.popFirst()
    case "--instances": instances = max(1, Int(args.popFirst() ?? "") ?? 1)
    case "--writers": writers = max(1, Int(args.popFirst() ?? "") ?? writers)
    case "--stores": storeCount = max(1, Int(args.popFirst() ?? "") ?? storeCount)
    case "--fill": fill = max(0, Int(args.popFirst() ?? "") ?? 0)
    case "--remote-watchers": remoteWatchers = true
    case "--client":
        switch args.popFirst() {
        case "raw": rawClient = true
        case "library": rawClient = false
        default: FileHandle.standardError.write(Data(usage.utf8)); exit(64)
        }
    case "--threads": loadThreads = max(1, Int(args.popFirst() ?? "") ?? 1)
    case "--protocol":
        switch args.popFirst() {
        case "events": streaming = true
        case "poll": streaming = false
        default: FileHandle.standardError.write(Data(usage.utf8)); exit(64)
        }
    default:
        FileHandle.standardError.write(Data(usage.utf8))
        exit(64)
    }
}
if postgres == nil && instances > 1 {
    FileHandle.standardError.write(Data("ubiquity-load: several instances need --postgres (SQLite is one server's)\n".utf8))
    exit(64)
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
// Removed however the program ends (it leaves through exit() as well as the end of this file).
nonisolated(unsafe) var workToRemove = work
atexit { try? FileManager.default.removeItem(atPath: workToRemove) }

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

// A flag that would be ignored is refused: a run that measured something else is worse than none.
if floor && !(mode == "commits" && rawClient) {
    print("ubiquity-load: --floor needs --mode commits and the raw client")
    exit(64)
}
if floorRounds > 1 && !floor {
    print("ubiquity-load: --rounds needs --floor")
    exit(64)
}

let database: [String] = postgres.map { ["--postgres", $0] } ?? ["--data", dataDirectory ?? work + "/data"]

/// Starts `executable` with `arguments`, its output into `<work>/<name>.out`, and waits (at most
/// 10 s) for the base URL it prints on a line of its own; its process, port (0: none printed) and URL.
@MainActor func launch(_ executable: String, _ arguments: [String], output name: String) throws -> (Process, Int, String) {
    let out = work + "/\(name).out"
    FileManager.default.createFile(atPath: out, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle(forWritingAtPath: out)
    try process.run()
    var url = ""
    for _ in 0..<200 {
        url = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        if url.hasSuffix("\n") { break }
        usleep(50_000)
    }
    url = url.trimmingCharacters(in: .whitespacesAndNewlines)
    return (process, Int(url.split(separator: ":").last ?? "") ?? 0, url)
}

/// Starts one `ubiquity serve`; its process and port.
@MainActor func startServer(_ n: Int) throws -> (Process, Int, String) {
    // A database filled with a million stores of one account is past the default quota.
    try launch(tool, ["serve", "--port", "0"] + database + (fill > 0 ? ["--quota-stores", "0", "--quota-bytes", "0"] : []), output: "serve\(n)")
}
var servers: [(process: Process, port: Int, url: String)] = []
for n in 0..<instances { servers.append(try startServer(n)) }
defer { for s in servers { s.process.terminate() } }
let server = servers[0].process
let port = servers[0].port
let url = servers[0].url
let token = run(["account", "add", "load\(getpid())"] + database).split(separator: "\n").last.map(String.init) ?? ""
print("servers: \(instances) over \(postgres == nil ? "SQLite" : "PostgreSQL")")

/// CPU seconds a process has used (user and system), from /proc.
func cpuSeconds(_ pid: Int32) -> Double {
    let text = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    // The fields after the command's closing parenthesis; utime and stime are the 12th and 13th of them.
    guard let close = text.lastIndex(of: ")") else { return 0 }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// CPU seconds used by every process whose command is `name` (PostgreSQL's backends), from /proc.
func cpuSeconds(named name: String) -> Double {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).reduce(0) { total, pid in
        let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
        return comm.hasPrefix(name) ? total + cpuSeconds(pid) : total
    }
}

/// CPU seconds this program has used.
func ownCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func residentKiB(_ pid: Int32) -> Int {
    let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
}

let store = "com.load.watched"
let transport = HTTPUbiquityTransport(account: UbiquityAccount(server: url, token: token, name: "load", identifier: "load"))

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// Runs SQL through psql on the --postgres database.
@MainActor func psql(_ sql: String) -> Bool {
    guard let postgres else { return false }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
    p.arguments = [postgres.replacingOccurrences(of: "postgres:///", with: "postgresql:///"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql]
    do { try p.run() } catch { return false }
    p.waitUntilExit()
    return p.terminationStatus == 0
}

if fill > 0 {
    guard postgres != nil else { print("ubiquity-load: --fill needs --postgres"); exit(64) }
    // Stores of 100 keys each (a small integer per key), written by the database itself in batches.
    let started = Date()
    let batch = 50_000
    var done = 0
    while done < fill {
        let upper = min(fill, done + batch)
        // The generator's own session: no wait for its fsyncs, and the foreign keys' per-row checks
        // skipped (it writes each store's row before its entries). The measured commits are unaffected.
        let ok = psql("""
            SET synchronous_commit = off;
            SET session_replication_role = replica;
            BEGIN;
            INSERT INTO stores(account, store, revision, key_count, total_bytes)
                SELECT a.id, 'fill.' || i, 1, 100, 100 * 43 FROM accounts a, generate_series(\(done + 1), \(upper)) i WHERE a.name = 'load\(getpid())';
            INSERT INTO entries(account, store, key, revision, value, size)
                SELECT a.id, 'fill.' || i, 'key' || k, 1, '\\x62706c6973743030100a08000000000000010100000000000000010000000000000000000000000000000a'::bytea, 43
                FROM accounts a, generate_series(\(done + 1), \(upper)) i, generate_series(1, 100) k WHERE a.name = 'load\(getpid())';
            INSERT INTO commits(account, store, revision, keys)
                SELECT a.id, 'fill.' || i, 1, 100 FROM accounts a, generate_series(\(done + 1), \(upper)) i WHERE a.name = 'load\(getpid())';
            COMMIT;
            """)
        guard ok else { print("ubiquity-load: filling failed at store \(done)"); exit(1) }
        done = upper
        if done % 200_000 == 0 || done == fill {
            print("filled \(done) stores (\(done * 100) entries) in \(Int(Date().timeIntervalSince(started))) s")
        }
    }
    _ = psql("ANALYZE")
}

/// The commits acknowledged so far, and their latencies.
final class WriteTally: Sendable {
    let goal: Int
    let state = NIOLockedValueBox<(applied: Int, latencies: [Double])>((0, []))
    init(goal: Int) { self.goal = goal }
    var wantsMore: Bool { state.withLockedValue { $0.applied < goal } }
    func applied(after nanoseconds: UInt64) {
        state.withLockedValue { $0.applied += 1; $0.latencies.append(Double(nanoseconds) / 1e6) }
    }
}

/// One writer speaking HTTP/1.1 itself on a keep-alive connection: a commit of its own key
/// based on the revision its last answer gave, the answer read with a byte scan (status line,
/// `Content-Length`, the result's `"status"` and its entry's `"revision"`), the next commit.
/// An answer it cannot read ends the run with an error (never counted as a write).
final class RawWriter: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let key: String, path: String, headers: String
    let tally: WriteTally
    let done: EventLoopPromise<Void>
    var base: Int64 = 0
    var n = 0
    var start: UInt64 = 0
    var buffer = ByteBuffer()

    init(key: String, path: String, headers: String, tally: WriteTally, done: EventLoopPromise<Void>) {
        (self.key, self.path, self.headers, self.tally, self.done) = (key, path, headers, tally, done)
    }

    struct Unreadable: Error, CustomStringConvertible { let description: String }

    /// Whether `done` is completed (once: the close that follows must not complete it again).
    var finished = false
    func finish(_ result: Result<Void, any Error>, _ context: ChannelHandlerContext) {
        guard !finished else { return }
        finished = true
        done.completeWith(result)
        context.close(promise: nil)
    }

    func send(_ context: ChannelHandlerContext) {
        guard tally.wantsMore else { finish(.success(()), context); return }
        n += 1
        let value = UbiquityWireValue.encode(.integer(.init(Int64(n))))
        let body = #"{"changes":[{"key":"\#(key)","base":\#(base),"value":"\#(value)"}]}"#
        var out = context.channel.allocator.buffer(capacity: 256 + body.utf8.count)
        out.writeString("POST \(path) HTTP/1.1\r\n\(headers)Content-Length: \(body.utf8.count)\r\n\r\n")
        out.writeString(body)
        start = now()
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
    }

    func channelActive(context: ChannelHandlerContext) { send(context) }

    func channelInactive(context: ChannelHandlerContext) { finish(.failure(Unreadable(description: "the server closed \(key)'s connection")), context) }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { finish(.failure(error), context) }

    static let contentLength = Array("content-length:".utf8)
    static let status = Array(#""status":""#.utf8)
    static let entry = Array(#""entry":"#.utf8)
    static let revision = Array(#""revision":"#.utf8)

    /// The decimal number at `i` in `bytes`, if any.
    static func number(in bytes: UnsafeRawBufferPointer, at i: Int) -> Int64? {
        var i = i, value: Int64 = 0, digits = 0
        while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { value = value * 10 + Int64(bytes[i] - 48); i += 1; digits += 1 }
        return digits > 0 ? value : nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        buffer.writeBuffer(&incoming)
        // nil: more bytes needed; otherwise the bytes used and the answer (applied, the entry's revision).
        let answer = buffer.withUnsafeReadableBytes { bytes -> Result<(used: Int, applied: Bool, revision: Int64), Unreadable>? in
            guard let headEnd = StreamWatcher.find(StreamWatcher.headEnd, in: bytes) else { return nil }
            let head = Array(bytes[0..<headEnd]).map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
            guard let code = head.count > 12 ? String(decoding: head[9..<12], as: UTF8.self) : nil,
                  let lengthAt = head.withUnsafeBytes({ StreamWatcher.find(Self.contentLength, in: $0) }) else {
                return .failure(Unreadable(description: "an answer without a status or Content-Length: \(String(decoding: head, as: UTF8.self))"))
            }
            var i = lengthAt + Self.contentLength.count
            while i < head.count, head[i] == 32 { i += 1 }
            let length = head.withUnsafeBytes { Self.number(in: $0, at: i) } ?? 0
            let total = headEnd + 4 + Int(length)
            guard bytes.count >= total else { return nil }
            let body = UnsafeRawBufferPointer(rebasing: bytes[(headEnd + 4)..<total])
            guard code == "200", let statusAt = StreamWatcher.find(Self.status, in: body),
                  let entryAt = StreamWatcher.find(Self.entry, in: body),
                  let revisionAt = StreamWatcher.find(Self.revision, in: body, from: entryAt),
                  let revision = Self.number(in: body, at: revisionAt + Self.revision.count) else {
                return .failure(Unreadable(description: "answer \(code) to a commit: \(String(decoding: body, as: UTF8.self))"))
            }
            let applied = body[(statusAt + Self.status.count)...].starts(with: "applied\"".utf8)
            return .success((total, applied, revision))
        }
        switch answer {
        case nil: return
        case .failure(let error):
            finish(.failure(error), context)
        case .success(let (used, applied, revision)):
            buffer.moveReaderIndex(forwardBy: used)
            buffer.discardReadBytes()
            if applied { tally.applied(after: now() - start) }
            base = revision
            send(context)
        }
    }
}

if mode == "commits" {
    // Writers spread over the instances, each its own key of one of the stores, until `commits` are acknowledged.
    // Warm up: every store exists.
    for s in 0..<storeCount {
        _ = try await transport.commit(store: "com.load.s\(s)", UbiquityCommitRequest(changes: [
            UbiquityWireChange(key: "warm", base: 0, value: UbiquityWireValue.encode(.integer(0)))]))
    }
    let storeCount = storeCount
    let tally = WriteTally(goal: commits)
    let cpu0 = (servers: servers.reduce(0) { $0 + cpuSeconds($1.process.processIdentifier) },
                database: postgres == nil ? 0 : cpuSeconds(named: "postgres"), load: ownCPUSeconds())
    var backup: Process? = nil
    let backupStart = DispatchTime.now().uptimeNanoseconds
    if let backupTo {
        let b = Process()
        b.executableURL = URL(fileURLWithPath: tool)
        b.arguments = ["backup"] + database + [backupTo]
        try b.run()
        backup = b
    }
    /// Raw writers, spread over `ports`, until `tally` has its commits.
    func rawCommits(ports: [Int], tally: WriteTally) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: loadThreads)
        var finished: [EventLoopFuture<Void>] = []
        for w in 0..<writers {
            let port = ports[w % ports.count]
            let loop = group.next()
            let done = loop.makePromise(of: Void.self)
            let writer = RawWriter(key: "w\(w)", path: "/v1/stores/com.load.s\(w % storeCount)/commit",
                                   headers: "Host: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\n",
                                   tally: tally, done: done)
            _ = try await ClientBootstrap(group: loop).channelInitializer { $0.pipeline.addHandler(writer) }
                .connect(host: "127.0.0.1", port: port).get()
            finished.append(done.futureResult)
        }
        for f in finished { try await f.get() }
        try await group.shutdownGracefully()
    }
    /// `http-floor` started beside this program, and its port.
    func startFloor() throws -> (Process, Int) {
        let (floorServer, floorPort, _) = try launch(here.appendingPathComponent("http-floor").path, [], output: "floor")
        guard floorPort > 0 else {
            floorServer.terminate()
            print("ubiquity-load: http-floor did not start (build it: swift build -c release --product http-floor)")
            exit(1)
        }
        return (floorServer, floorPort)
    }
    /// `goal` writes by the raw writers against `ports`: how many were acknowledged, and the seconds they took.
    func timedRawCommits(ports: [Int], goal: Int) async throws -> (done: Int, seconds: Double) {
        let tally = WriteTally(goal: goal)
        let start = DispatchTime.now().uptimeNanoseconds
        try await rawCommits(ports: ports, tally: tally)
        return (tally.state.withLockedValue { $0.applied }, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    if floor && floorRounds > 1 {
        // Interleaved rounds: the machine's speed drifts over seconds, so each round's commits and
        // floor run back to back, and the median of the rounds' ratios is the figure.
        let (floorServer, floorPort) = try startFloor()
        let perRound = max(1, commits / floorRounds)
        var ratios: [Double] = []
        for round in 1...floorRounds {
            let cpuBefore = servers.reduce(0) { $0 + cpuSeconds($1.process.processIdentifier) }
            let committed = try await timedRawCommits(ports: servers.map(\.port), goal: perRound)
            let commitCPU = servers.reduce(0) { $0 + cpuSeconds($1.process.processIdentifier) } - cpuBefore
            let answered = try await timedRawCommits(ports: [floorPort], goal: perRound)
            let commitRate = Double(committed.done) / committed.seconds, floorRate = Double(answered.done) / answered.seconds
            ratios.append(commitRate / floorRate)
            print(String(format: "round %d: %.0f commits/s (server CPU %.0f µs a commit), floor %.0f requests/s: %.3f",
                         round, commitRate, commitCPU / Double(committed.done) * 1e6, floorRate, commitRate / floorRate))
        }
        floorServer.terminate()
        for s in servers { s.process.terminate() }
        print(String(format: "commits / floor: median %.3f of %d interleaved rounds (%@) (goal >= 0.333)", percentile(ratios.sorted(), 0.5), floorRounds,
                     ratios.map { String(format: "%.3f", $0) }.joined(separator: ", ")))
        exit(0)
    }
    let t0 = DispatchTime.now().uptimeNanoseconds
    if rawClient {
        try await rawCommits(ports: servers.map(\.port), tally: tally)
    } else {
        let transports = (0..<instances).map { i in
            HTTPUbiquityTransport(account: UbiquityAccount(server: servers[i].url, token: token, name: "load", identifier: "load"),
                                  maximumConnections: writers)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<writers {
                group.addTask {
                    let t = transports[w % transports.count]
                    let target = "com.load.s\(w % storeCount)"
                    var base: Int64 = 0
                    var n = 0
                    while tally.wantsMore {
                        n += 1
                        let start = DispatchTime.now().uptimeNanoseconds
                        let r = try await t.commit(store: target, UbiquityCommitRequest(changes: [
                            UbiquityWireChange(key: "w\(w)", base: base, value: UbiquityWireValue.encode(.integer(.init(Int64(n)))))]))
                        if r.results.first?.status == .applied { tally.applied(after: DispatchTime.now().uptimeNanoseconds - start) }
                        base = r.results.first?.entry.revision ?? base
                    }
                }
            }
            try await group.waitForAll()
        }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
    let (done, latencies) = tally.state.withLockedValue { ($0.applied, $0.latencies) }
    let cpu = (servers: servers.reduce(0) { $0 + cpuSeconds($1.process.processIdentifier) } - cpu0.servers,
               database: (postgres == nil ? 0 : cpuSeconds(named: "postgres")) - cpu0.database,
               load: ownCPUSeconds() - cpu0.load)
    let sorted = latencies.sorted()
    print(String(format: "commits: %d acknowledged in %.3f s = %.0f writes/s (%d writers, %d store(s), %d instance(s), %@ client); latency p50 %.1f ms, p99 %.1f ms",
                 done, seconds, Double(done) / seconds, writers, storeCount, instances, rawClient ? "raw" : "library", percentile(sorted, 0.5), percentile(sorted, 0.99)))
    print(String(format: "CPU per acknowledged write: server(s) %.0f µs, PostgreSQL %.0f µs, this program %.0f µs (%.0f%%, %.0f%%, %.0f%% of a core)",
                 cpu.servers / Double(done) * 1e6, cpu.database / Double(done) * 1e6, cpu.load / Double(done) * 1e6,
                 cpu.servers / seconds * 100, cpu.database / seconds * 100, cpu.load / seconds * 100))
    if let backup {
        let ended = backup.isRunning ? nil : DispatchTime.now().uptimeNanoseconds
        backup.waitUntilExit()
        let took = Double((ended ?? DispatchTime.now().uptimeNanoseconds) - backupStart) / 1e9
        print(String(format: "backup: exit status %d, %@ %.1f s (the commits ran %.1f s)", backup.terminationStatus,
                     ended == nil ? "finished after the commits, in" : "finished within the commits, by", took, seconds))
    }
    for s in servers { s.process.terminate() }
    if floor {
        // The same writers against the bare HTTP floor, in the same run.
        let (floorServer, floorPort) = try startFloor()
        defer { floorServer.terminate() }
        let floorTally = WriteTally(goal: commits)
        let floorCPU0 = cpuSeconds(floorServer.processIdentifier)
        let f0 = DispatchTime.now().uptimeNanoseconds
        try await rawCommits(ports: [floorPort], tally: floorTally)
        let floorSeconds = Double(DispatchTime.now().uptimeNanoseconds - f0) / 1e9
        let floorCPU = cpuSeconds(floorServer.processIdentifier) - floorCPU0
        let (floorDone, floorLatencies) = floorTally.state.withLockedValue { ($0.applied, $0.latencies) }
        let floorSorted = floorLatencies.sorted()
        let floorRate = Double(floorDone) / floorSeconds
        print(String(format: "floor: %d answered in %.3f s = %.0f requests/s (http-floor: Hummingbird reads the body, answers 200); latency p50 %.1f ms, p99 %.1f ms; its CPU %.0f µs a request",
                     floorDone, floorSeconds, floorRate, percentile(floorSorted, 0.5), percentile(floorSorted, 0.99), floorCPU / Double(floorDone) * 1e6))
        print(String(format: "commits / floor: %.3f (goal >= 0.333)", Double(done) / seconds / floorRate))
    }
    exit(0)
}

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
/// (``StreamWatcher`` holds an event stream instead.)
class Watcher: ChannelInboundHandler, @unchecked Sendable {
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

    /// The request that asks for what comes after ``after``.
    func request() -> String { "GET \(path)?after=\(after)&wait=30 HTTP/1.1\r\n\(headers)\r\n" }

    func ask(_ context: ChannelHandlerContext) {
        // After the shutdown's SIGTERM the watchers stay quiet (clients elsewhere would reconnect
        // to another server; here they would only take the server's cores).
        if stopAsking.withLockedValue({ $0 }) { return }
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: request())), promise: nil)
    }

    func channelActive(context: ChannelHandlerContext) {
        ask(context)
        arrivals.armed.withLockedValue { $0 += 1 }
    }

    /// A revision seen: recorded when it is new.
    func arrived(_ revision: Int64) {
        guard revision > after else { return }
        after = revision
        arrivals.record(revision, at: now())
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
                arrived(Int64(body[r.upperBound...].prefix { $0.isNumber }) ?? after)
            }
            ask(context)
        }
    }
}

/// One watcher on an event stream: each event parsed for its revision; when
/// the stream ends (after its 30 s), asked again from the last revision.
final class StreamWatcher: Watcher, @unchecked Sendable {
    /// The response's head has been read; the body's chunks follow.
    var inBody = false
    var events: [UInt8] = []

    override func request() -> String {
        "GET \(path)?after=\(after) HTTP/1.1\r\n\(headers)Accept: text/event-stream\r\n\r\n"
    }

    /// The offset of `pattern` in `bytes` from `start`, if any (a plain scan:
    /// the generic `firstRange(of:)` cost this program more than the server's work).
    static func find(_ pattern: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        var i = start
        while i <= bytes.count - pattern.count {
            if bytes[i] == pattern[0] {
                var j = 1
                while j < pattern.count && bytes[i + j] == pattern[j] { j += 1 }
                if j == pattern.count { return i }
            }
            i += 1
        }
        return nil
    }

    static let headEnd: [UInt8] = [13, 10, 13, 10]
    static let crlf: [UInt8] = [13, 10]
    static let blank: [UInt8] = [10, 10]
    static let id: [UInt8] = Array("id: ".utf8)

    /// The largest `id:` of the whole events in `bytes` (or `after`), and how many bytes they take.
    static func newestID(in bytes: UnsafeRawBufferPointer, after: Int64) -> (newest: Int64, consumed: Int) {
        var start = 0
        var newest = after
        while let blank = find(blank, in: bytes, from: start) {
            if let id = find(id, in: UnsafeRawBufferPointer(rebasing: bytes[start..<blank])) {
                var value: Int64 = 0
                var i = start + id + 4
                while i < blank, bytes[i] >= 48, bytes[i] <= 57 { value = value * 10 + Int64(bytes[i] - 48); i += 1 }
                newest = max(newest, value)
            }
            start = blank + 2
        }
        return (newest, start)
    }

    override func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        buffer.writeBuffer(&incoming)
        while true {
            // How many bytes were used, and whether the response ended; nil: more bytes needed.
            let step: (used: Int, ended: Bool)? = buffer.withUnsafeReadableBytes { bytes in
                if !inBody {
                    guard let end = Self.find(Self.headEnd, in: bytes) else { return nil }
                    inBody = true
                    return (end + 4, false)
                }
                // A chunk: its size in hexadecimal, CRLF, the bytes, CRLF; size 0 ends the response.
                guard let line = Self.find(Self.crlf, in: bytes) else { return nil }
                var size = 0
                for b in bytes[0..<line] {
                    switch b {
                    case 48...57: size = size * 16 + Int(b - 48)
                    case 97...102: size = size * 16 + Int(b - 87)
                    case 65...70: size = size * 16 + Int(b - 55)
                    default: break
                    }
                }
                let total = line + 2 + size + 2
                guard bytes.count >= total else { return nil }
                if size == 0 { inBody = false; return (total, true) }
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[(line + 2)..<(line + 2 + size)])
                if events.isEmpty, chunk.count >= 2, chunk[chunk.count - 2] == 10, chunk[chunk.count - 1] == 10 {
                    // The common case: the chunk holds whole events (the server writes one event per chunk).
                    arrived(Self.newestID(in: chunk, after: after).newest)
                } else {
                    events += chunk
                }
                return (total, false)
            }
            guard let step else { return }
            buffer.moveReaderIndex(forwardBy: step.used)
            if buffer.readableBytes == 0 { buffer.clear() } else { buffer.discardReadBytes() }
            guard !events.isEmpty else {
                if step.ended { ask(context) }
                continue
            }
            // Whole events end in a blank line; each one's id is its revision.
            let (newest, consumed) = events.withUnsafeBytes { Self.newestID(in: $0, after: after) }
            events.removeFirst(consumed)
            arrived(newest)
            if step.ended { ask(context) }
        }
    }
}

// The watchers share one thread: on a small machine the server keeps the other cores
// (with two threads here, on two cores, the server's writes waited for this program's reads).
let group = MultiThreadedEventLoopGroup(numberOfThreads: loadThreads)
let path = "/v1/stores/\(store)/changes"
let startRevision = revision
@MainActor func bootstrap(_ port: Int) -> ClientBootstrap {
    let headers = "Host: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n"
    return ClientBootstrap(group: group)
        .channelOption(.socketOption(.so_reuseaddr), value: 1)
        .channelInitializer { [arrivals] channel in
            streaming
                ? channel.pipeline.addHandler(StreamWatcher(after: startRevision, path: path.replacingOccurrences(of: "/changes", with: "/events"),
                                                            headers: headers, arrivals: arrivals))
                : channel.pipeline.addHandler(Watcher(after: startRevision, path: path, headers: headers, arrivals: arrivals))
        }
}
let bootstraps = servers.map { bootstrap($0.port) }
@MainActor func resident() -> Int { servers.reduce(0) { $0 + residentKiB($1.process.processIdentifier) } }

let baseline = resident()
var channels: [Channel] = []
let started = Date()
var failed = 0
while channels.count + failed < watchers {
    let batch = min(250, watchers - channels.count - failed)
    let first = channels.count + failed
    let futures = (0..<batch).map { i in
        let spread = remoteWatchers && servers.count > 1 ? servers.count - 1 : servers.count
        let n = (first + i) % spread + (servers.count - spread)
        return bootstraps[n].connect(host: "127.0.0.1", port: servers[n].port)
    }
    for f in futures {
        do { channels.append(try await f.get()) } catch { failed += 1 }
    }
}
// Every watcher's long poll is in flight before the first commit.
while arrivals.armed.withLockedValue({ $0 }) < channels.count { try await Task.sleep(for: .milliseconds(50)) }
try await Task.sleep(for: .seconds(2))
let withWatchers = resident()
print("watchers (\(streaming ? "event streams" : "long polls")): \(channels.count) connected in \(String(format: "%.1f", Date().timeIntervalSince(started))) s (\(failed) failed)")

var latencies: [Double] = []
var commitTimes: [Double] = []
var missed = 0
let serversCPU0 = servers.reduce(0) { $0 + cpuSeconds($1.process.processIdentifier) }
let ownCPU0 = cpuSeconds(getpid())
for i in 1...commits {
    let t0 = now()
    let response = try await transport.commit(store: store, UbiquityCommitRequest(changes: [
        UbiquityWireChange(key: "k", base: keyRevision, value: UbiquityWireValue.encode(.integer(.init(Int64(i)))))]))
    keyRevision = response.revision
    revision = response.revision
    commitTimes.append(Double(now() &- t0) / 1e6)
    let deadline = Date().addingTimeInterval(10)
    while arrivals.count(revision) < channels.count, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
    let times = arrivals.times(revision)
    missed += channels.count - times.count
    latencies += times.map { Double($0 &- t0) / 1e6 }
    // Let every watcher ask again before the next commit.
    try await Task.sleep(for: .milliseconds(500))
}
latencies.sort()
let serversCPU = servers.reduce(0) { $0 + cpuSeconds($1.process.processIdentifier) } - serversCPU0
let ownCPU = cpuSeconds(getpid()) - ownCPU0
print(String(format: "propagation over %d watchers × %d commits: min %.1f ms, p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms; missed %d",
             channels.count, commits, latencies.first ?? .nan, percentile(latencies, 0.5), percentile(latencies, 0.9), percentile(latencies, 0.99),
             latencies.last ?? .nan, missed))
print(String(format: "CPU per commit: servers %.0f ms (%.1f µs per watcher), this program %.0f ms",
             serversCPU * 1000 / Double(commits), serversCPU * 1e6 / Double(commits * max(1, channels.count)), ownCPU * 1000 / Double(commits)))
print("servers' resident memory: \(baseline / 1024) MiB idle, \(withWatchers / 1024) MiB with \(channels.count) watchers (\(channels.count > 0 ? (withWatchers - baseline) * 1024 / channels.count : 0) bytes each)")
if shutdown {
    stopAsking.withLockedValue { $0 = true }
    let t0 = Date()
    kill(server.processIdentifier, SIGTERM)
    while server.isRunning { try await Task.sleep(for: .milliseconds(1)) }
    print(String(format: "shutdown with %d event streams open: SIGTERM to exit in %.3f s (exit status %d)",
                 channels.count, Date().timeIntervalSince(t0), server.terminationStatus))
}
for c in channels { c.close(promise: nil) }
try await group.shutdownGracefully()
