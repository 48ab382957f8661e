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

    @Test("a server that cannot listen says where and why: the port taken, a name that does not resolve", .offThePool)
    func cannotListen() throws {
        let t = try ToolSandbox()
        // A port another program holds.
        let holder = try SilentListener()
        defer { withExtendedLifetime(holder) {} }  // held to the test's end
        let port = holder.port
        let data = t.root.path + "/server"
        let cases: [(tool: String, args: [String], says: String)] = [
            ("ubiquity", ["serve", "--port", "\(port)", "--data", data],
             "ubiquity: cannot listen on 127.0.0.1:\(port): the address is in use (try another port with --port)\n"),
            ("ubiquity", ["serve", "--metrics", "127.0.0.1:\(port)", "--data", data],
             "ubiquity: metrics: cannot listen on 127.0.0.1:\(port): the address is in use (try another port with --metrics)\n"),
            ("settings", ["serve", "--port", "\(port)"],
             "settings: cannot listen on 127.0.0.1:\(port): the address is in use (try another port with --port)\n"),
            ("settings", ["serve", "--host", "nonexistent.invalid", "--insecure", "--port", "0"],
             "settings: cannot listen on nonexistent.invalid:0: the name does not resolve to an address\n"),
        ]
        for c in cases {
            let r = try t.run(c.args, tool: c.tool)
            #expect(r.status == 1, "\(c.tool) \(c.args): \(r.stderr)")
            // A line of its own (the sync server's log lines of its start and stop come around it).
            #expect(("\n" + r.stderr).contains("\n" + c.says), "\(c.tool) \(c.args): \(r.stderr)")
        }
    }

    @Test("an argument's control characters are printed escaped, whatever refuses it", .offThePool)
    func argumentsEscaped() throws {
        let t = try ToolSandbox()
        let cases: [(tool: String, args: [String])] = [
            ("settings", ["serve", "--\u{1B}[31mred"]),                       // argument-parser's "Unknown option"
            ("ubiquity", ["\u{1B}[31mget"]),                                  // an unknown command
            ("profiles", ["\u{1B}]0;title\u{7}"]),
            ("ubiquity", ["serve", "--port", "\u{1B}[2J"]),                    // a value that is not a number
            ("settings", ["serve", "--host", "\u{1B}[31mevil", "--insecure", "--port", "0"]),   // a name that does not resolve
        ]
        for c in cases {
            let r = try t.run(c.args, tool: c.tool)
            #expect(r.status != 0, "\(c.tool) \(c.args)")
            let raw = r.stderr.unicodeScalars.filter { $0.value < 0x20 && $0 != "\n" && $0 != "\t" }
            #expect(raw.isEmpty, "\(c.tool) \(c.args) printed control characters: \(r.stderr.debugDescription)")
            #expect(r.stderr.contains("\\u{1B}"), "\(c.tool) \(c.args): \(r.stderr.debugDescription)")
        }
    }

    @Test("defaults and plutil print the control characters of arguments, file names, domains and keys escaped", .offThePool)
    func defaultsAndPlutilEscape() throws {
        let t = try ToolSandbox()
        let red = "\u{1B}[31m"
        // A key with an escape sequence and a newline (written by another program), a domain file with one in its name.
        #expect(try t.defaults("write", "com.example.esc", red + "key\nforged", "v").status == 0)
        try Data("<plist><dict/></plist>".utf8).write(to: t.config.appendingPathComponent(red + "planted.plist"))
        let named = t.root.appendingPathComponent(red + "named.plist")
        try Data("<plist><dict/></plist>".utf8).write(to: named)
        let cases: [(tool: String, args: [String])] = [
            ("defaults", ["read", red + "domain"]), ("defaults", ["read", "com.example.esc", red + "missing"]),
            ("defaults", [red + "verb"]), ("defaults", ["domains"]), ("defaults", ["__keys", "com.example.esc"]),
            ("plutil", ["-lint", "/nonexistent/" + red + "file"]), ("plutil", ["-" + red + "option"]),
            ("plutil", ["-lint", named.path]),
        ]
        for c in cases {
            let r = try t.run(c.args, tool: c.tool)
            let printed = r.stdout + r.stderr
            let raw = printed.unicodeScalars.filter { $0.value < 0x20 && $0 != "\n" && $0 != "\t" }
            #expect(raw.isEmpty, "\(c.tool) \(c.args) printed control characters: \(printed.debugDescription)")
            #expect(printed.contains("\\u{1B}[31m"), "\(c.tool) \(c.args): \(printed.debugDescription)")
        }
        // One key, one line: its newline is escaped, not a second line.
        #expect(try t.run(["__keys", "com.example.esc"], tool: "defaults").stdout == "\\u{1B}[31mkey\\u{A}forged\n")
    }
}
