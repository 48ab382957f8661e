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
    let r = try runProcess(absolute ? tool : productsDirectory.appendingPathComponent(tool).path, arguments, environment: environment, input: input)
    return ToolResult(status: r.status, stdout: r.stdout, stderr: r.stderr)
}
