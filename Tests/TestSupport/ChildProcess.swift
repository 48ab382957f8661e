public import Foundation

/// What a finished child process printed, and how it ended.
public struct ProcessOutput: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// Standard output's bytes, as written.
    public var stdoutData: Data
}

/// Runs `executable` with `arguments` to its end: standard input `input` (then
/// closed; nothing by default), standard output and error read whole.
///
/// ```swift
/// let r = try runProcess("/bin/sh", ["-c", "echo hi"])   // r.stdout == "hi\n"
/// ```
public func runProcess(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                       input: Data? = nil, in directory: URL? = nil) throws -> ProcessOutput {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    if let environment { p.environment = environment }
    if let directory { p.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe(), inp = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = inp
    try p.run()
    TestProcess.ignoreBrokenPipes()
    // Both pipes are drained at once: a child that fills one while we wait on the other never blocks.
    let stderrData = Locked(Data())
    let read = DispatchSemaphore(value: 0)
    let reader = Thread {
        stderrData.set(err.fileHandleForReading.readDataToEndOfFile())
        read.signal()
    }
    reader.start()
    if let input { try? inp.fileHandleForWriting.write(contentsOf: input) }
    try? inp.fileHandleForWriting.close()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    read.wait()
    return ProcessOutput(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                         stderr: String(decoding: stderrData.value, as: UTF8.self), stdoutData: o)
}

/// Starts `executable` with `arguments`, its output and errors thrown away, and returns
/// it running: for tests that kill their children, or wait for many at once.
///
/// ```swift
/// let p = try startProcess(helper, ["set-and-die", "D", "k", "v", "9"])
/// p.waitUntilExit()
/// ```
public func startProcess(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    if let environment { p.environment = environment }
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    return p
}
