import Foundation
import Testing
import TestSupport

/// Issue 41: "an idle agent: no polling, at most one wake-up a minute". On Linux, Swift's default
/// executor is libdispatch, whose worker pool wakes every second for the life of the process; the
/// agent runs on its own executor (proposal 0020), and its event stream lasts 150 s.
@Suite("An idle fleet agent sleeps", .offThePool, .timeLimit(.minutes(5)), .requires(.root, .openssl, .curl))
struct FleetIdleTests {
    /// The voluntary context switches of all of `pid`'s threads (each wake-up of a thread ends in one).
    static func switches(_ pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { total, task in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
            return total + (line.flatMap { Int($0.split(separator: "\t").last ?? "") } ?? 0)
        }
    }

    /// The names of `pid`'s threads.
    static func threadNames(_ pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// A file of /proc read to its end: such a file says its size is 0, and a reader that takes
    /// the size at its word stops after the first page (a loaded machine's TCP table has many).
    static func read(_ path: String) -> String {
        guard let file = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? file.close() }
        return String(decoding: (try? file.readToEnd()) ?? Data(), as: UTF8.self)
    }

    /// The sockets of `pid`, as its descriptors name them.
    static func sockets(_ pid: Int32) -> [String] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }.filter { $0.hasPrefix("socket:") }
    }

    /// How many TCP connections `pid` holds (its sockets found established in /proc's tables:
    /// a test runner's own sockets, inherited, are not connections).
    static func connections(_ pid: Int32) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let inodes = Set(fds.compactMap { fd -> Substring? in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? ""
            return target.hasPrefix("socket:[") ? target.dropFirst(8).dropLast() : nil
        })
        var established = 0
        for table in ["tcp", "tcp6"] {
            let text = Self.read("/proc/\(pid)/net/\(table)")
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                if fields.count > 9, fields[3] == "01", inodes.contains(fields[9]) { established += 1 }
            }
        }
        return established
    }

    @Test("an agent with its declaration applied and reported, after an absence of the server, wakes only for its stream's renewal and has no libdispatch thread")
    func idleAgentSleeps() throws {
        let scene = try FleetScene(try SyncServer(.sqlite))
        let machine = try FleetMachine("idle")
        try scene.enroll(machine)
        try machine.startAgent()
        try scene.publish(mode: "calm")
        #expect(eventually(20) { (try? machine.read("com.example.fleet", "Mode")) == "calm" }, "\(machine.agentErrors)")
        try #require(eventually(20) { (try? FleetTests.reported(scene.server, machine, group: "desktops").revision) == 1 })
        let pid = try #require(machine.agent?.processIdentifier)
        // The server away, then back: the agent backs off between attempts (its waits must not
        // start libdispatch's pool either).
        scene.server.kill()
        #expect(eventually(20) { machine.agentErrors.contains("lost the server") }, "\(machine.agentErrors)")
        try scene.server.restart()
        #expect(eventually(20) { ((try? String(contentsOfFile: machine.agentLog, encoding: .utf8)) ?? "").contains("the server is back") })
        // Idle, proven: its report's connection has closed (2 s after the report), leaving one
        // connection, its event stream; and no thread of it has woken for 3 s.
        #expect(eventually(20) { Self.connections(pid) == 1 }, """
            connections: \(Self.connections(pid)); sockets \(Self.sockets(pid)); threads \(Self.threadNames(pid))
            \((try? String(contentsOfFile: machine.agentLog, encoding: .utf8)) ?? "")
            \(machine.agentErrors)
            """)
        var quiet = 0, before = Self.switches(pid)
        for _ in 0..<20 where quiet < 3 {
            Thread.sleep(forTimeInterval: 1)
            let now = Self.switches(pid)
            quiet = now == before ? quiet + 1 : 0
            before = now
        }
        #expect(quiet >= 3, "the agent never stayed asleep for 3 s in 20 s")
        let names = Self.threadNames(pid)
        #expect(!names.contains { $0.contains("qos") }, "libdispatch's worker threads (named after their queue's QoS): \(names)")
        // 61 one-second samples. A run of seconds in which some thread woke is one wake-up (a
        // stream's renewal wakes several threads at once, over more than a second when loaded);
        // a run longer than 3 s is not one wake-up but a process that keeps waking. The stream
        // lasts 150 s, so the window holds at most one renewal: two wake-ups, the renewal and,
        // 5 s later, the connections' timers (cancelled, but an event loop wakes for a cancelled
        // timer all the same). 0.8 a minute.
        var wakeups = 0, awakeSeconds = 0, last = Self.switches(pid), wasAwake = false
        for _ in 0..<61 {
            Thread.sleep(forTimeInterval: 1)
            let now = Self.switches(pid)
            let awake = now != last
            if awake { awakeSeconds += 1 }
            if awake && !wasAwake { wakeups += 1 }
            (last, wasAwake) = (now, awake)
        }
        #expect(wakeups <= 2 && awakeSeconds <= 6, "\(wakeups) wake-ups, awake in \(awakeSeconds) of 61 s; threads \(names)")
        // Still following: a new revision arrives at once.
        try scene.publish(mode: "awake")
        #expect(eventually(20) { (try? machine.read("com.example.fleet", "Mode")) == "awake" }, "\(machine.agentErrors)")
    }
}
