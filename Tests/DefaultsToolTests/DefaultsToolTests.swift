import Foundation
import TestSupport
import Testing
import PropertyList

/// Black-box tests of the built `defaults`, in a throw-away HOME and
/// XDG_CONFIG_HOME, against `../shared/reference/defaults-tool.md`.
extension Optional {
    func orDefault(_ d: Wrapped) -> Wrapped { self ?? d }
}

/// Polls a file's text until `done` holds or `seconds` pass.
func readUntil(_ url: URL, seconds: Double, _ done: (String) -> Bool) -> String {
    let deadline = Date().addingTimeInterval(seconds)
    var text = ""
    repeat {
        text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        if done(text) { return text }
        Thread.sleep(forTimeInterval: 0.02)
    } while Date() < deadline
    return text
}

/// Starts a long-running program with its output going to a file.
func startInBackground(_ tool: String, _ args: [String], environment: [String: String], output: URL) throws -> Process {
    try startProcess(ToolSandbox.products.appendingPathComponent(tool).path, args, environment: environment,
                     output: .file(output)).process
}

final class ToolSandbox: @unchecked Sendable {
    let root: URL
    let config: URL
    static let products = Products.directory

    init() throws {
        root = try ScratchFolders.make("defaults-tool")
        config = root.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
    }
    deinit { ScratchFolders.remove(root) }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = root.path
        env["XDG_CONFIG_HOME"] = config.path
        env["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        env["XDG_DATA_DIRS"] = root.appendingPathComponent("share").path
        env["OPENDEFAULTS_SYSTEM_ROOT"] = root.appendingPathComponent("system").path
        return env
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The messages without NSLog's date/process prefix (`2024-01-02 03:04:05.678 defaults[1:1] `).
        var messages: String {
            var out = ""
            var rest = Substring(stderr)
            while let range = rest.range(of: " defaults[") {
                out += rest[..<rest[..<range.lowerBound].lastIndex(of: "\n").map { rest.index(after: $0) }.orDefault(rest.startIndex)]
                rest = rest[range.upperBound...]
                if let close = rest.range(of: "] ") { rest = rest[close.upperBound...] }
            }
            return out + rest
        }
    }

    @discardableResult
    func defaults(_ args: String..., input: String? = nil) throws -> Result { try run(Array(args), input: input) }

    func run(_ args: [String], input: String? = nil, tool: String = "defaults") throws -> Result {
        let r = try runProcess(Self.products.appendingPathComponent(tool).path, args, environment: environment, input: input.map { Data($0.utf8) })
        return Result(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    func file(_ domain: String) throws -> PropertyList {
        try PropertyList(decoding: Data(contentsOf: config.appendingPathComponent(domain + ".plist")))
    }
}

@Suite("defaults: verbs, values and messages", .offThePool, .timeLimit(.minutes(10)))
struct DefaultsToolTests {
    @Test("write with every value flag, then read the domain as macOS prints it")
    func writeAndRead() throws {
        let t = try ToolSandbox()
        for args in [
            ["write", "com.example.app", "Name", "Ada Lovelace"], ["write", "com.example.app", "Count", "-int", "42"],
            ["write", "com.example.app", "Ratio", "-float", "0.1"], ["write", "com.example.app", "On", "-bool", "YES"],
            ["write", "com.example.app", "Colors", "-array", "red", "-int", "2"], ["write", "com.example.app", "Colors", "-array-add", "blue"],
            ["write", "com.example.app", "Opts", "-dict", "a", "1", "b", "-int", "2"], ["write", "com.example.app", "Opts", "-dict-add", "c", "3"],
            ["write", "com.example.app", "Blob", "-data", "deadbeef"], ["write", "com.example.app", "When", "-date", "2024-01-02 03:04:05 +0000"],
            ["write", "com.example.app", "Lit", "(1, \"two\")"], ["write", "com.example.app", "Plain", "1"],
        ] {
            let r = try t.run(args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        let r = try t.defaults("read", "com.example.app")
        #expect(r.status == 0)
        #expect(r.stdout == """
            {
                Blob = {length = 4, bytes = 0xdeadbeef};
                Colors =     (
                    red,
                    2,
                    blue
                );
                Count = 42;
                Lit =     (
                    1,
                    two
                );
                Name = "Ada Lovelace";
                On = 1;
                Opts =     {
                    a = 1;
                    b = 2;
                    c = 3;
                };
                Plain = 1;
                Ratio = "0.1000000014901161";
                When = "2024-01-02 03:04:05 +0000";
            }

            """)
        // Types as stored: a literal without a flag is a string.
        let file = try t.file("com.example.app")
        #expect(file["Plain"] == "1")
        #expect(file["Count"] == 42)
        #expect(file["On"] == true)
        #expect(file["Colors"] == ["red", 2, "blue"])
        #expect(try t.defaults("read", "com.example.app", "Count").stdout == "42\n")
        #expect(try t.defaults("read", "com.example.app", "Name").stdout == "Ada Lovelace\n")
        #expect(try t.defaults("read-type", "com.example.app", "Ratio").stdout == "Type is float\n")
        #expect(try t.defaults("read-type", "com.example.app", "On").stdout == "Type is boolean\n")
        #expect(try t.defaults("read-type", "com.example.app", "Opts").stdout == "Type is dictionary\n")
    }

    @Test("the spec's messages and exit codes for missing domains and keys")
    func missing() throws {
        let t = try ToolSandbox()
        var r = try t.defaults("read", "com.none")
        #expect(r.status == 1)
        #expect(r.messages == "\nDomain com.none does not exist\n")
        #expect(r.stderr.contains(" defaults["))
        try t.defaults("write", "com.x", "a", "1")
        r = try t.defaults("read", "com.x", "b")
        #expect(r.status == 1)
        #expect(r.messages == "\nThe domain/default pair of (com.x, b) does not exist\n")
        r = try t.defaults("read", "-g", "Nope")
        #expect(r.messages == "\nThe domain/default pair of (kCFPreferencesAnyApplication, Nope) does not exist\n")
        r = try t.defaults("read-type", "com.x", "b")
        #expect(r.status == 1)
        r = try t.defaults("delete", "com.x", "b")
        #expect(r.status == 1)
        #expect(r.messages == "\nDomain (com.x) not found.\nDefaults have not been changed.\n")
        r = try t.defaults("delete", "com.none")
        #expect(r.status == 1)
        r = try t.defaults("rename", "com.x", "b", "c")
        #expect(r.messages == "\nKey b does not exist in domain com.x; leaving defaults unchanged\n")
        #expect(r.status == 1)
    }

    @Test("usage errors name what was wrong in one line, then the help, on standard error, and exit 255; help exits 0")
    func usage() throws {
        let t = try ToolSandbox()
        let cases: [([String], String)] = [
            ([], "a verb is needed: read, read-type, write, rename, delete, remove, import, export, domains, find, watch, completion, help, printHostIdentifier"),
            (["frobnicate"], "unknown verb \"frobnicate\""),
            (["wrte", "com.x", "k", "1"], "unknown verb \"wrte\" (did you mean \"write\"?)"),
            (["-currenthost", "read", "com.x"], "unknown option \"-currenthost\" (did you mean \"-currentHost\"?)"),
            (["--format=yaml", "read", "com.x"], "--format expects plain, xml or json, got \"yaml\""),
            (["export", "com.x", "out", "--format=yaml"],
             "unexpected argument \"--format=yaml\" after export's arguments (options go before the verb: defaults [-currentHost | -host NAME] [--format=FORMAT] VERB …)"),
            (["read-type", "com.x"], "read-type needs a key after the domain"),
            (["write", "com.x", "k", "-bool", "maybe"], "-bool expects YES/NO/true/false/1/0, got \"maybe\""),
            (["write", "com.x", "k", "-date", "notadate"], "-date expects a date such as 2024-01-02T03:04:05Z, got \"notadate\""),
            (["write", "com.x", "k", "-data", "xyz"], "-data expects hexadecimal digits, got \"xyz\""),
            (["write", "com.x", "k", "-int"], "-int needs a value after it"),
            (["write", "com.x", "k", "-integr", "11"], "unknown type flag -integr (did you mean -integer?); to write the text -integr, write -string -integr"),
            (["write", "com.x", "k", "-arry", "1", "2"], "unknown type flag -arry (did you mean -array?); to write the text -arry, write -string -arry"),
            (["write", "com.x", "k", "-float", "1e999"], "-float expects a finite number from -3.4028235e+38 to 3.4028235e+38, got \"1e999\""),
            (["write", "com.x", "k", "-float", "nan"], "-float expects a finite number from -3.4028235e+38 to 3.4028235e+38, got \"nan\""),
            (["write", "com.x", "k", "-float", "-inf"], "-float expects a finite number from -3.4028235e+38 to 3.4028235e+38, got \"-inf\""),
            (["write", "com.x", "k", "-float", "1e39"], "-float expects a finite number from -3.4028235e+38 to 3.4028235e+38, got \"1e39\""),
            (["watch"], "watch needs a domain (a name such as com.example.app, -g, -app Name, or a file's path)"),
            (["read", "--nope"], "unknown option \"--nope\" where read expects a domain"),
            (["-host"], "-host needs a host name"),
        ]
        for (args, problem) in cases {
            let r = try t.run(args)
            #expect(r.status == 255, "\(args)")
            #expect(r.stdout.isEmpty, "\(args)")
            #expect(r.stderr.hasPrefix("defaults: \(problem)\n\nCommand line interface to a user's defaults."), "\(args): \(r.stderr.prefix(200))")
        }
        for args in [["help"], ["HELP"], ["--help"], ["-h"], ["read", "-h"], ["write", "--help"]] {
            let help = try t.run(args)
            #expect(help.status == 0, "\(args)")  // verbs are case-insensitive; options are options
            #expect(help.stdout.contains("-array-add <value1> <value2> ..."), "\(args)")
        }
        // A verb macOS does not have: its own help, not the general usage.
        for (verb, first) in [("watch", "usage: defaults watch <domain> [<key>]\n"), ("completion", "usage: defaults completion bash | zsh | fish\n")] {
            for flag in ["--help", "-h", "-help"] {
                let help = try t.run([verb, flag])
                #expect(help.status == 0 && help.stderr.isEmpty, "\(verb) \(flag)")
                #expect(help.stdout.hasPrefix(first) && !help.stdout.contains("-array-add"), "\(verb) \(flag): \(help.stdout)")
            }
        }
    }

    @Test("values are never guessed: a value that is not what its flag says is refused and nothing is written")
    func valuesNotGuessed() throws {
        let t = try ToolSandbox()
        #expect(try t.defaults("write", "com.x", "kept", "-int", "1").status == 0)
        let cases: [([String], String)] = [
            (["-int", "five"], "-int expects an integer, got \"five\""),
            (["-integer", "12abc"], "-integer expects an integer, got \"12abc\""),
            (["-int", "99999999999999999999999"], "-int expects an integer from -9223372036854775808 to 9223372036854775807, got \"99999999999999999999999\""),
            (["-float", "abc"], "-float expects a number such as 1.5 or -2e3, got \"abc\""),
            (["-float", ""], "-float expects a number such as 1.5 or -2e3, got \"\""),
        ]
        for (value, problem) in cases {
            let r = try t.run(["write", "com.x", "k"] + value)
            #expect(r.status == 255 && r.stderr.hasPrefix("defaults: \(problem)\n"), "\(value): \(r.stderr.prefix(160))")
            #expect(try t.defaults("read", "com.x", "k").status == 1, "\(value) wrote something")
        }
        // What is a number still is one.
        #expect(try t.defaults("write", "com.x", "n", "-int", "-7").status == 0)
        #expect(try t.defaults("read", "com.x", "n").stdout == "-7\n")
        #expect(try t.defaults("write", "com.x", "b", "-bool", "1").status == 0)
        #expect(try t.defaults("read-type", "com.x", "b").stdout == "Type is boolean\n")
        #expect(try t.defaults("write", "com.x", "f", "-float", " 2.5 ").status == 0)
        #expect(try t.defaults("read", "com.x", "f").stdout == "2.5\n")
    }

    @Test("import says why a file cannot be read")
    func importReasons() throws {
        let t = try ToolSandbox()
        var r = try t.defaults("import", "com.x", "/nonexistent/missing.plist")
        #expect(r.status == 1 && r.messages == "\nCould not read data from /nonexistent/missing.plist: no such file or directory\n", "\(r.messages)")
        r = try t.defaults("import", "com.x", "/tmp")
        #expect(r.status == 1 && r.messages == "\nCould not read data from /tmp: is a directory\n", "\(r.messages)")
    }

    @Test("write errors: unparseable literals, nested composites, extra arguments, odd dictionaries, non-arrays")
    func writeErrors() throws {
        let t = try ToolSandbox()
        var r = try t.defaults("write", "com.x", "k", "(unclosed")
        #expect(r.status == 1)
        #expect(r.messages == "\nCould not parse: (unclosed.  Try single-quoting it.\n")
        r = try t.defaults("write", "com.x", "k", "-array", "-array", "a")
        #expect(r.messages == "\nCannot nest composite types (arrays and dictionaries); exiting\n")
        r = try t.defaults("write", "com.x", "k", "-int", "1", "extra")
        #expect(r.messages == "\nUnexpected argument extra; leaving defaults unchanged.\n")
        r = try t.defaults("write", "com.x", "k", "-dict", "a")
        #expect(r.messages == "\nKey a lacks a corresponding value\n")
        try t.defaults("write", "com.x", "s", "text")
        r = try t.defaults("write", "com.x", "s", "-array-add", "x")
        #expect(r.messages == "\nValue for key s is not an array; cannot append.  Leaving defaults unchanged.\n")
        r = try t.defaults("write", "com.x", "s", "-dict-add", "a", "b")
        #expect(r.messages == "\nValue for key s is not a dictionary; cannot append.  Leaving defaults unchanged.\n")
        r = try t.defaults("write", "com.x", "(1, 2)")
        #expect(r.messages == "\nRep argument is not a dictionary\nDefaults have not been changed.\n")
        #expect(try t.file("com.x") == ["s": "text"])
    }

    @Test("write a whole domain, rename, delete a key and a domain, domains, find")
    func domainVerbs() throws {
        let t = try ToolSandbox()
        #expect(try t.defaults("write", "com.b", "{ a = 1; b = (x); }").status == 0)
        #expect(try t.file("com.b") == ["a": "1", "b": ["x"]])
        #expect(try t.defaults("rename", "com.b", "a", "c").status == 0)
        #expect(try t.file("com.b") == ["c": "1", "b": ["x"]])
        #expect(try t.defaults("delete", "com.b", "c").status == 0)
        try t.defaults("write", "com.a", "Greeting", "Hello World")
        try t.defaults("write", "-g", "Global", "1")
        #expect(try t.defaults("domains").stdout == "com.a, com.b\n")
        let found = try t.defaults("find", "world")
        #expect(found.stdout == "Found 1 keys in domain 'com.a': {\n    Greeting = \"Hello World\";\n}\n")
        let none = try t.defaults("find", "zebra")
        #expect(none.status == 0)
        #expect(none.messages == "\nNo domain, key, nor value containing 'zebra'\n")
        #expect(try t.defaults("delete", "com.b").status == 0)
        #expect(!FileManager.default.fileExists(atPath: t.config.appendingPathComponent("com.b.plist").path))
        let all = try t.defaults("read")
        #expect(all.stdout.contains("\"Apple Global Domain\" =     {"))
        #expect(all.stdout.contains("\"com.a\" =     {"))
    }

    @Test("import merges a plist from a file or standard input; export writes XML or binary")
    func importExport() throws {
        let t = try ToolSandbox()
        try t.defaults("write", "com.ie", "keep", "1")
        let xml = String(decoding: try PropertyList.dictionary(["new": 2]).encoded(as: .xml), as: UTF8.self)
        #expect(try t.defaults("import", "com.ie", "-", input: xml).status == 0)
        #expect(try t.file("com.ie") == ["keep": "1", "new": 2])
        let exported = try t.defaults("export", "com.ie", "-")
        #expect(exported.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"))
        let path = t.root.appendingPathComponent("out.plist").path
        #expect(try t.defaults("export", "com.ie", path).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(8) == Data("bplist00".utf8))
        var r = try t.defaults("import", "com.ie", "-", input: "(1, 2)")
        #expect(r.status == 1)
        #expect(r.messages.contains("was not a dictionary\nDefaults have not been changed."))
        r = try t.defaults("import", "com.ie", "/nonexistent")
        #expect(r.messages == "\nCould not read data from /nonexistent: no such file or directory\n")
        r = try t.defaults("import", "com.ie", "-", input: "<plist><dict>")
        #expect(r.messages.hasPrefix("\nCould not parse property list from - due to"))
    }

    @Test("domains given as a path, -globalDomain spellings, -currentHost and -host")
    func domainForms() throws {
        let t = try ToolSandbox()
        let path = t.root.appendingPathComponent("Custom").path
        #expect(try t.defaults("write", path, "k", "v").status == 0)
        #expect(FileManager.default.fileExists(atPath: path + ".plist"))
        #expect(try t.defaults("read", path + ".plist", "k").stdout == "v\n")
        for spelling in ["-g", "-globalDomain", "NSGlobalDomain"] {
            #expect(try t.defaults("write", spelling, "G", spelling).status == 0)
            #expect(try t.defaults("read", "-g", "G").stdout == spelling + "\n")
        }
        #expect(FileManager.default.fileExists(atPath: t.config.appendingPathComponent(".GlobalPreferences.plist").path))
        #expect(try t.defaults("-currentHost", "write", "com.h", "k", "byhost").status == 0)
        let byHost = try FileManager.default.contentsOfDirectory(atPath: t.config.appendingPathComponent("ByHost").path)
        #expect(byHost.contains { $0.hasPrefix("com.h.") && $0.hasSuffix(".plist") })
        #expect(try t.defaults("read", "com.h", "k").status == 1)
        #expect(try t.defaults("-currentHost", "read", "com.h", "k").stdout == "byhost\n")
        #expect(try t.defaults("-host", "otherhost", "write", "com.h", "k", "named").status == 0)
        #expect(FileManager.default.fileExists(atPath: t.config.appendingPathComponent("ByHost/com.h.otherhost.plist").path))
    }

    @Test("-app finds an application by desktop entry or bundle, else the macOS message")
    func app() throws {
        let t = try ToolSandbox()
        let apps = t.root.appendingPathComponent("share/applications")
        try FileManager.default.createDirectory(at: apps, withIntermediateDirectories: true)
        try Data("[Desktop Entry]\nName=Calculator\nExec=calc\n".utf8).write(to: apps.appendingPathComponent("org.example.Calculator.desktop"))
        #expect(try t.defaults("write", "-app", "Calculator", "k", "v").status == 0)
        #expect(try t.file("org.example.Calculator") == ["k": "v"])
        let bundle = t.root.appendingPathComponent("Applications/Thing.app/Contents")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try PropertyList.dictionary(["CFBundleIdentifier": "com.example.thing"]).data(as: .xml).write(to: bundle.appendingPathComponent("Info.plist"))
        #expect(try t.defaults("write", "-app", "Thing", "k", "v").status == 0)
        #expect(try t.file("com.example.thing") == ["k": "v"])
        let r = try t.defaults("read", "-app", "Nothing")
        #expect(r.status == 1)
        #expect(r.messages == "Couldn't find an application named \"Nothing\"; defaults unchanged\n")
    }

    @Test("non-ASCII output as macOS escapes it, or plain UTF-8 with --utf8")
    func unicode() throws {
        let t = try ToolSandbox()
        try t.defaults("write", "com.u", "Title", "Mise à jour")
        #expect(try t.defaults("read", "com.u", "Title").stdout == "Mise \\340 jour\n")
        #expect(try t.defaults("--utf8", "read", "com.u", "Title").stdout == "Mise à jour\n")
        #expect(try t.defaults("read", "com.u").stdout == "{\n    Title = \"Mise \\U00e0 jour\";\n}\n")
    }
}

@Suite("defaults: what macOS users ask for", .offThePool, .timeLimit(.minutes(10)))
struct DefaultsExtensionTests {
    @Test("lossless machine-readable output: XML and JSON")
    func formats() throws {
        let t = try ToolSandbox()
        try t.defaults("write", "com.f", "n", "-int", "3")
        try t.defaults("write", "com.f", "r", "-float", "1.5")
        let xml = try t.defaults("--format=xml", "read", "com.f")
        #expect(try PropertyList(decoding: Data(xml.stdout.utf8)) == ["n": 3, "r": 1.5])
        let json = try t.defaults("--format=json", "read", "com.f", "n")
        #expect(json.stdout == "3\n")
        try t.defaults("write", "com.f", "d", "-data", "00")
        let bad = try t.defaults("--format=json", "read", "com.f")
        #expect(bad.status == 1)
        #expect(try t.defaults("--format=json", "read", "com.f", "r").stdout == "1.5\n")
    }

    @Test("key paths into nested values, with a backslash escape for dots")
    func keyPaths() throws {
        let t = try ToolSandbox()
        try t.defaults("write", "com.k", "a", "{ b = (1, 2, 3); }")
        #expect(try t.defaults("--key-path", "write", "com.k", "a.b.2", "-int", "9").status == 0)
        #expect(try t.defaults("--key-path", "read", "com.k", "a.b.2").stdout == "9\n")
        #expect(try t.defaults("--key-path", "read-type", "com.k", "a.b").stdout == "Type is array\n")
        #expect(try t.defaults("--key-path", "write", "com.k", "x.y.z", "deep").status == 0)
        #expect(try t.file("com.k")["x"] == ["y": ["z": "deep"]])
        #expect(try t.defaults("--key-path", "delete", "com.k", "a.b.0").status == 0)
        #expect(try t.file("com.k")["a"] == ["b": ["2", 9]])
        #expect(try t.defaults("--key-path", "write", "com.k", "dotted\\.key", "v").status == 0)
        #expect(try t.file("com.k")["dotted.key"] == "v")
        // Without the option, a dot is part of the key, as on macOS.
        #expect(try t.defaults("write", "com.k", "com.apple.scaling", "1").status == 0)
        #expect(try t.file("com.k")["com.apple.scaling"] == "1")
    }

    @Test("idempotent array edits")
    func arrayEdits() throws {
        let t = try ToolSandbox()
        try t.defaults("write", "com.a", "L", "-array", "a", "b")
        try t.defaults("write", "com.a", "L", "-array-add-unique", "b", "c")
        try t.defaults("write", "com.a", "L", "-array-add-unique", "c")
        #expect(try t.file("com.a")["L"] == ["a", "b", "c"])
        try t.defaults("write", "com.a", "L", "-array-remove", "a", "zzz")
        #expect(try t.file("com.a")["L"] == ["b", "c"])
    }

    @Test("full data instead of the abbreviation")
    func fullData() throws {
        let t = try ToolSandbox()
        try t.defaults("write", "com.d", "D", "-data", String(repeating: "ab", count: 30))
        #expect(try t.defaults("read", "com.d", "D").stdout.contains(" ... "))
        #expect(try t.defaults("--full-data", "read", "com.d", "D").stdout == "{length = 30, bytes = 0x" + String(repeating: "ab", count: 30) + "}\n")
    }

    @Test("watch prints changes made by other processes")
    func watch() throws {
        let t = try ToolSandbox()
        try t.defaults("write", "com.w", "k", "0")
        let log = t.root.appendingPathComponent("watch.txt")
        let p = try startInBackground("defaults", ["watch", "com.w", "k"], environment: t.environment, output: log)
        defer { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }  // SIGTERM may be blocked in test runners
        // The watcher may take a moment to start: write until it reports (bounded).
        var seen = ""
        for attempt in 0..<20 where !seen.contains("k = changed") {
            try t.defaults("write", "com.w", "other", "ignored\(attempt)")
            try t.defaults("write", "com.w", "k", "changed")
            seen = readUntil(log, seconds: 0.5) { $0.contains("k = changed") }
            if !seen.contains("k = changed") { try t.defaults("write", "com.w", "k", "reset") }
        }
        #expect(seen.contains("k = changed\n"))
        #expect(!seen.contains("other"))
    }

    @Test("shell completion scripts for bash, zsh and fish; keys completed from the store")
    func completion() throws {
        let t = try ToolSandbox()
        #expect(try t.defaults("completion", "bash").stdout.contains("complete -F _defaults defaults"))
        #expect(try t.defaults("completion", "zsh").stdout.contains("#compdef defaults"))
        #expect(try t.defaults("completion", "fish").stdout.contains("complete -c defaults"))
        try t.defaults("write", "com.c", "Alpha", "1")
        try t.defaults("write", "com.c", "Beta", "1")
        #expect(try t.defaults("__keys", "com.c").stdout == "Alpha\nBeta\n")
        // What bash offers (the script run by bash itself, with the tool on PATH).
        let script = t.root.appendingPathComponent("defaults.bash")
        try Data(try t.defaults("completion", "bash").stdout.utf8).write(to: script)
        func offered(_ words: [String]) throws -> [String] {
            let line = words.map { "'\($0)'" }.joined(separator: " ")
            var env = t.environment
            env["PATH"] = ToolSandbox.products.path + ":/usr/bin:/bin"
            let r = try runProcess("/bin/bash", ["-c", "source '\(script.path)'; COMP_WORDS=(\(line)); COMP_CWORD=\(words.count - 1); _defaults; printf '%s\\n' \"${COMPREPLY[@]}\""],
                                   environment: env)
            return r.stdout.split(separator: "\n").map(String.init)
        }
        #expect(try offered(["defaults", "write", "com.c", "k", "-"]) == ["-string", "-data", "-int", "-integer", "-float", "-bool", "-boolean",
                                                                    "-date", "-array", "-array-add", "-array-add-unique", "-array-remove", "-dict", "-dict-add"])
        #expect(try offered(["defaults", "write", "com.c", "k", "-array", "a", "-d"]) == ["-data", "-date", "-dict", "-dict-add"])
        let verbs = try offered(["defaults", ""])
        for verb in ["completion", "printHostIdentifier", "read-type", "remove", "-currentHost", "--format=xml"] { #expect(verbs.contains(verb), "\(verbs)") }
        #expect(try offered(["defaults", "completion", ""]) == ["bash", "zsh", "fish"])
        #expect(try offered(["defaults", "read", "com.c", "B"]) == ["Beta"])
    }

    @Test("an application observing a key is told about defaults write at once")
    func applicationSeesWrite() throws {
        let t = try ToolSandbox()
        let log = t.root.appendingPathComponent("observe.txt")
        let p = try startInBackground("defaults-test-helper", ["observe", "com.obs", "Volume"], environment: t.environment, output: log)
        defer { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }  // SIGTERM may be blocked in test runners
        #expect(readUntil(log, seconds: 10) { $0.contains("ready") }.contains("ready"))
        try t.defaults("write", "com.obs", "Volume", "-int", "11")
        let seen = readUntil(log, seconds: 5) { $0.contains("11\n") }
        #expect(seen.contains("11\n"))
    }
}
