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

/// Where a started child's standard output or error goes.
public enum ChildOutput: Sendable {
    /// Thrown away (`/dev/null`).
    case discarded
    /// The test process's own (a child's complaints show in the test's output).
    case inherited
    /// A pipe back to the test: read it from ``RunningProcess/output`` or ``RunningProcess/errors``.
    case pipe
    /// Appended to a file, made empty first.
    case file(URL)
}

/// A child started by ``startProcess(_:_:environment:output:errors:in:)``: the process, and the
/// read ends of the streams asked for as ``ChildOutput/pipe``.
public struct RunningProcess: @unchecked Sendable {
    public let process: Process
    /// Standard output, when it was asked for as a pipe.
    public let output: FileHandle?
    /// Standard error, when it was asked for as a pipe.
    public let errors: FileHandle?
    public var processIdentifier: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    /// The exit status, or the number of the signal that ended it (see ``terminationReason``).
    public var terminationStatus: Int32 { process.terminationStatus }
    public var terminationReason: Process.TerminationReason { process.terminationReason }
}

/// Starts `executable` with `arguments` (standard input `/dev/null`; output and errors as asked,
/// thrown away by default) and returns it running: for tests that kill their children, wait for
/// many at once, or read their lines as they come.
///
/// ```swift
/// let p = try startProcess(helper, ["set-and-die", "D", "k", "v", "9"])
/// p.waitUntilExit()
/// let watch = try startProcess(tool, ["watch"], output: .pipe)   // lines from watch.output
/// ```
@discardableResult
public func startProcess(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                         output: ChildOutput = .discarded, errors: ChildOutput = .discarded,
                         in directory: URL? = nil) throws -> RunningProcess {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    if let environment { p.environment = environment }
    if let directory { p.currentDirectoryURL = directory }
    p.standardInput = FileHandle.nullDevice
    var opened: [FileHandle] = []
    func destination(_ kind: ChildOutput, inherited: FileHandle) throws -> (Any, FileHandle?) {
        switch kind {
        case .discarded: return (FileHandle.nullDevice, nil)
        case .inherited: return (inherited, nil)
        case .pipe: let pipe = Pipe(); return (pipe, pipe.fileHandleForReading)
        case .file(let url):
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            let handle = try FileHandle(forWritingTo: url)
            opened.append(handle)
            return (handle, nil)
        }
    }
    let (out, outRead) = try destination(output, inherited: .standardOutput)
    let (err, errRead) = try destination(errors, inherited: .standardError)
    p.standardOutput = out
    p.standardError = err
    defer { for handle in opened { try? handle.close() } }   // the child has its own copies
    try p.run()
    return RunningProcess(process: p, output: outRead, errors: errRead)
}

extension RunningProcess {
    /// Waits for the child to end; its exit status (or the signal that ended it).
    @discardableResult
    public func waitUntilExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}
