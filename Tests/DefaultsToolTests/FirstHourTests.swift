import Foundation
import PropertyList
import Testing
import TestSupport

/// What a newcomer met in their first hour with `defaults` (issue 38): bytes
/// that are not UTF-8, one line per failure, lock files that stay behind,
/// folders listed as domains.
@Suite("defaults: the first hour", .offThePool, .timeLimit(.minutes(10)))
struct FirstHourTests {
    /// Runs `defaults` through `/bin/sh`, whose `printf` makes bytes no Swift string can hold.
    func shell(_ t: ToolSandbox, _ script: String) throws -> ProcessOutput {
        try runProcess("/bin/sh", ["-c", script, ToolSandbox.products.appendingPathComponent("defaults").path], environment: t.environment)
    }

    @Test("an argument that is not UTF-8 is refused with its position, and nothing is written (a key, a value, a domain)")
    func nonUTF8Arguments() throws {
        let t = try ToolSandbox()
        let cases = [
            (#""$0" write com.x "$(printf 'k\377')" 1"#, "argument 3 is not UTF-8 text (byte 2 is not valid UTF-8)"),
            (#""$0" write com.x k "$(printf 'caf\303')""#, "argument 4 is not UTF-8 text (byte 4 is not valid UTF-8)"),
            (#""$0" write "$(printf 'com.\200x')" k 1"#, "argument 2 is not UTF-8 text (byte 5 is not valid UTF-8)"),
        ]
        for (script, problem) in cases {
            let r = try shell(t, script)
            #expect(r.status == 255, "\(script)")
            #expect(r.stderr.hasPrefix("defaults: \(problem); domains, keys and values must be UTF-8\n"), "\(script): \(r.stderr.prefix(200))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.config.path).isEmpty)
    }

    @Test("a write that fails says so in one line, without the library's promise about memory, and exits 1")
    func oneLinePerFailure() throws {
        let t = try ToolSandbox()
        // A folder where the domain's file should be: it cannot be read or written.
        try FileManager.default.createDirectory(at: t.config.appendingPathComponent("com.blocked.plist"), withIntermediateDirectories: true)
        let r = try t.defaults("write", "com.blocked", "k", "1")
        #expect(r.status == 1)
        let lines = r.messages.split(separator: "\n")
        #expect(lines == ["Could not write domain com.blocked (cannot read domain com.blocked from \(t.config.path)/com.blocked.plist: not a regular file); exiting"],
                "\(r.stderr)")
        #expect(!r.stderr.contains("kept in memory") && !r.stderr.contains("OpenDefaults:"))
        // A file that is not a property list: moved aside (said once), and the write succeeds.
        try Data("garbage<".utf8).write(to: t.config.appendingPathComponent("com.corrupt.plist"))
        let c = try t.defaults("write", "com.corrupt", "k", "1")
        #expect(c.status == 0)
        #expect(c.messages.split(separator: "\n").count == 1 && c.messages.contains("it was moved to"), "\(c.stderr)")
    }

    @Test("no lock file is left beside a domain, after a write, a failed write or an edit of a file by path")
    func noLockFilesLeft() throws {
        let t = try ToolSandbox()
        #expect(try t.defaults("write", "com.example.app", "k", "1").status == 0)
        #expect(try t.defaults("write", "com.example.app", "k", "-array-add", "2").status == 1)  // not an array: refused
        #expect(try t.defaults("write", "com.example.app", "list", "-array", "1").status == 0)
        #expect(try t.defaults("write", "com.example.app", "list", "-array-add", "2").status == 0)
        #expect(try t.defaults("delete", "com.example.app", "k").status == 0)
        let settings = t.root.appendingPathComponent("etc/opendefaults")
        try FileManager.default.createDirectory(at: settings, withIntermediateDirectories: true)
        #expect(try t.defaults("write", settings.path + "/ubiquity.plist", "host", "0.0.0.0").status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: settings.path) == ["ubiquity.plist"])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: t.config.path).filter { $0.hasSuffix(".lock") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("domains lists files only: a folder named like a domain's file is not a domain")
    func domainsListsFilesOnly() throws {
        let t = try ToolSandbox()
        #expect(try t.defaults("write", "com.example.real", "k", "1").status == 0)
        try FileManager.default.createDirectory(at: t.config.appendingPathComponent("com.example.folder.plist"), withIntermediateDirectories: true)
        let r = try t.defaults("domains")
        #expect(r.status == 0)
        #expect(r.stdout == "com.example.real\n")
    }
}
