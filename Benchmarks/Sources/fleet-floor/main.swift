// fleet-floor: the floor of issue 41's fleet figure on this machine (Benchmarks/Scripts/fleet_floor.py).
//
// What `fleet_publish.py` measures, with every line of OpenDefaults taken out and the rest kept:
// the same stack (a Hummingbird server; machines on AsyncHTTPClient, one client and one
// event stream each, in one process), the same bytes on the wire (an event of the declaration's
// size to every machine; a report of the report's size on a connection that closes 2 s after it),
// and the same file work a machine does to apply a declaration durably (the system calls
// `strace` shows `ubiquity agent` making: the state file written atomically twice, the profile
// tree read, written beside the live one, synced, exchanged with it and the old one removed,
// under a lock). No signature, no property list, no JSON, no trust checks, no database.
//
//   fleet-floor serve                 prints its URL; GET /events, POST /publish, POST /report/N, GET /results
//   fleet-floor machines URL DIR N [--no-files]
//                                     N machines in this process, each with its own folder DIR/mI
//                                     (--no-files: the network alone, no file work)
import AsyncHTTPClient
import FloorServer
import Glibc
import Hummingbird
import NIOCore
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: fleet-floor serve | fleet-floor machines URL DIR N [--no-files]")
    exit(2)
}

// MARK: The server

/// The streams open, the last publish's time and each machine's report time after it.
final class Hub: Sendable {
    struct State {
        var streams: [Int: AsyncStream<ByteBuffer>.Continuation] = [:]
        var nextStream = 0
        var published: ContinuousClock.Instant?
        var reports: [Duration] = []
    }
    let state = Mutex(State())

    func open() -> AsyncStream<ByteBuffer> {
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
        let id = state.withLock { s in
            s.nextStream += 1
            s.streams[s.nextStream] = continuation
            return s.nextStream
        }
        continuation.onTermination = { [self] _ in _ = state.withLock { $0.streams.removeValue(forKey: id) } }
        return stream
    }

    func publish(_ event: ByteBuffer) -> Int {
        let streams = state.withLock { s in
            s.published = .now
            s.reports = []
            return Array(s.streams.values)
        }
        for stream in streams { stream.yield(event) }
        return streams.count
    }

    func report() {
        let now = ContinuousClock.now
        state.withLock { s in
            if let published = s.published { s.reports.append(now - published) }
        }
    }
}

func serve() async throws {
    let hub = Hub()
    let router = Router()
    router.get("/events") { _, _ -> Response in
        let stream = hub.open()
        return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody { writer in
            // The head goes out at once, as the server's streams do.
            try await writer.write(ByteBuffer(string: ": open\n\n"))
            for await event in stream { try await writer.write(event) }
            try await writer.finish(nil)
        })
    }
    router.post("/publish") { request, _ -> Response in
        let body = try await request.body.collect(upTo: 1 << 20)
        var event = ByteBuffer(string: "data: ")
        event.writeImmutableBuffer(body)
        event.writeString("\n\n")
        let n = hub.publish(event)
        return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "\(n)\n")))
    }
    router.post("/report/:machine") { request, _ -> Response in
        let body = try await request.body.collect(upTo: 1 << 20)
        hub.report()
        return Response(status: .ok, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(string: #"{"results":[{"status":"applied"}],"read":\#(body.readableBytes)}"#)))
    }
    router.get("/results") { _, _ -> Response in
        let (streams, reports) = hub.state.withLock { ($0.streams.count, $0.reports) }
        let millis = reports.map { String(Double($0.components.attoseconds) / 1e15 + Double($0.components.seconds) * 1000) }
        return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "\(streams)\n" + millis.joined(separator: "\n"))))
    }
    try await serveOnLoopback(router)
}

// MARK: A machine's file work

/// The durable file work of one apply, in the system calls the agent makes (no checks, fixed bytes).
struct MachineFiles {
    let root: String
    let profile = [UInt8](repeating: 0x41, count: 887)
    let forced = [UInt8](repeating: 0x42, count: 228)
    let index = [UInt8](repeating: 0x43, count: 1362)
    let manifest = [UInt8](repeating: 0x44, count: 337)
    let state = [UInt8](repeating: 0x45, count: 178)

    init(root: String) {
        self.root = root
        mkdir(root, 0o755)
        mkdir(root + "/agent", 0o700)
        mkdir(root + "/managed", 0o755)
        mkdir(root + "/managed/profiles", 0o755)
        mkdir(root + "/managed/profiles/installed", 0o700)
        for (name, bytes) in [("index.plist", index), ("applications.plist", manifest), ("installed/1.mobileconfig", profile)] {
            create(root + "/managed/profiles/" + name, bytes, mode: 0o644)
        }
    }

    func create(_ path: String, _ bytes: [UInt8], mode: mode_t, sync: Bool = false) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        precondition(fd >= 0, "\(path): \(errno)")
        fchmod(fd, mode)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if sync { fsync(fd) }
        close(fd)
    }

    func read(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        precondition(fd >= 0, "\(path): \(errno)")
        var info = stat()
        fstat(fd, &info)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while buffer.withUnsafeMutableBytes({ Glibc.read(fd, $0.baseAddress, $0.count) }) > 0 {}
        close(fd)
    }

    func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        fsync(fd)
        close(fd)
    }

    func atomicWrite(_ path: String, _ bytes: [UInt8], sequence: Int) {
        let temporary = path + ".tmp-\(sequence)"
        create(temporary, bytes, mode: 0o600, sync: true)
        rename(temporary, path)
        syncDirectory(root + "/agent")
    }

    func removeTree(_ path: String) {
        guard let dir = opendir(path) else { unlink(path); return }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(dir)
        for name in names {
            var info = stat()
            lstat(path + "/" + name, &info)
            if (info.st_mode & S_IFMT) == S_IFDIR { removeTree(path + "/" + name) } else { unlink(path + "/" + name) }
        }
        rmdir(path)
    }

    /// One apply: the state's intent, the tree read, the new tree beside it, exchanged, the old one
    /// removed, then the state's result.
    func apply(sequence: Int) {
        read(root + "/managed/profiles/index.plist")
        atomicWrite(root + "/agent/state.plist", state, sequence: sequence * 2)
        let lock = open(root + "/managed/.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        flock(lock, LOCK_EX)
        read(root + "/managed/profiles/applications.plist")
        read(root + "/managed/profiles/index.plist")
        read(root + "/managed/profiles/installed/\(sequence).mobileconfig")
        let staging = root + "/managed/.new"
        mkdir(staging, 0o755); chmod(staging, 0o755)
        mkdir(staging + "/installed", 0o700); chmod(staging + "/installed", 0o700)
        create(staging + "/installed/\(sequence + 1).mobileconfig", profile, mode: 0o600)
        mkdir(staging + "/forced", 0o755); chmod(staging + "/forced", 0o755)
        create(staging + "/forced/com.example.bench.plist", forced, mode: 0o644)
        create(staging + "/index.plist", index, mode: 0o644)
        create(staging + "/applications.plist", manifest, mode: 0o644)
        let fd = open(staging, O_RDONLY | O_CLOEXEC)
        _ = syncFileSystem(fd)
        close(fd)
        _ = exchange(AT_FDCWD, staging, AT_FDCWD, root + "/managed/profiles", 2)   // RENAME_EXCHANGE
        syncDirectory(root + "/managed")
        rename(staging + "/forced", staging + "/forced.removed")
        removeTree(staging)
        unlink(root + "/managed/.lock")
        flock(lock, LOCK_UN)
        close(lock)
        atomicWrite(root + "/agent/state.plist", state, sequence: sequence * 2 + 1)
    }
}

/// glibc's `renameat2`, which Swift's Glibc module does not declare.
let exchange = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2")!,
                             to: (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32).self)

/// glibc's `syncfs`, likewise.
let syncFileSystem = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs")!,
                                   to: (@convention(c) (Int32) -> Int32).self)

// MARK: The machines

func machines(url: String, directory: String, count: Int, files applying: Bool) async throws {
    let report = ByteBuffer(bytes: [UInt8](repeating: 0x20, count: 462))
    await withTaskGroup(of: Void.self) { group in
        for i in 0..<count {
            group.addTask {
                var configuration = HTTPClient.Configuration()
                configuration.connectionPool = .init(idleTimeout: .seconds(2))
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                let files = MachineFiles(root: directory + "/m\(i)")
                var sequence = 1
                do {
                    let response = try await client.execute(HTTPClientRequest(url: url + "/events"), timeout: .hours(24))
                    var pending: [UInt8] = []
                    for try await chunk in response.body {
                        pending.append(contentsOf: chunk.readableBytesView)
                        // Each event ends with an empty line; the first (": open") is not one to apply.
                        while let end = pending.indices.dropLast().first(where: { pending[$0] == 10 && pending[$0 + 1] == 10 }) {
                            let isData = pending.starts(with: Array("data:".utf8))
                            pending.removeFirst(end + 2)
                            guard isData else { continue }
                            if applying { files.apply(sequence: sequence) }
                            sequence += 1
                            var post = HTTPClientRequest(url: url + "/report/\(i)")
                            post.method = .POST
                            post.body = .bytes(report)
                            let answer = try await client.execute(post, timeout: .seconds(30))
                            _ = try await answer.body.collect(upTo: 1 << 20)
                        }
                    }
                } catch {
                    print("machine \(i): \(error)")
                }
                try? await client.shutdown()
            }
        }
    }
}

switch arguments[1] {
case "serve":
    try await serve()
case "machines" where arguments.count == 5 || (arguments.count == 6 && arguments[5] == "--no-files"):
    try await machines(url: arguments[2], directory: arguments[3], count: Int(arguments[4]) ?? 1, files: arguments.count == 5)
default:
    print("usage: fleet-floor serve | fleet-floor machines URL DIR N [--no-files]")
    exit(2)
}
