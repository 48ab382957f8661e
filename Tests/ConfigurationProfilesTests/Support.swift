import Foundation
import TestSupport

struct ToolResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// The folder holding the built executables (beside the test bundle).
let productsDirectory = Products.directory

/// Runs a built tool (or, `absolute`, any program) to its end.
func runTool(_ tool: String, _ arguments: [String], input: Data? = nil, absolute: Bool = false, environment: [String: String]? = nil) throws -> ToolResult {
    let p = Process()
    p.executableURL = absolute ? URL(fileURLWithPath: tool) : productsDirectory.appendingPathComponent(tool)
    p.arguments = arguments
    if let environment { p.environment = environment }
    let out = Pipe(), err = Pipe(), inp = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = input == nil ? FileHandle.nullDevice : inp
    try p.run()
    if let input {
        TestProcess.ignoreBrokenPipes()
        try? inp.fileHandleForWriting.write(contentsOf: input)
        try? inp.fileHandleForWriting.close()
    }
    // Both pipes read at once: a full one must not stall the other.
    let errData = Locked<Data>(Data())
    let reader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    while !errData.done { usleep(1000) }
    return ToolResult(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData.value, as: UTF8.self))
}
