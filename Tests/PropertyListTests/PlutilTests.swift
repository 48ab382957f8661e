import Foundation
import Testing
import TestSupport
@testable import PropertyList

/// The built `plutil`, run as a user would.
@Suite("plutil", .offThePool, .timeLimit(.minutes(10)))
struct PlutilTests {
    let plutil = productsDirectory.appendingPathComponent("plutil").path

    func withFile(_ contents: String, name: String = "test.plist", _ body: (URL) throws -> Void) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        try body(url)
    }

    @Test("-lint reports OK, or the file and the problem with exit status 1")
    func lint() throws {
        try withFile("{ a = b; }") { url in
            let ok = try run(plutil, ["-lint", url.path])
            #expect(ok.status == 0)
            #expect(ok.stdout == "\(url.path): OK\n")
            #expect(try run(plutil, ["-lint", "-s", url.path]).stdout == "")
            let bad = url.deletingLastPathComponent().appendingPathComponent("bad.plist")
            try Data("<plist><dict><key>a</key></dict></plist>".utf8).write(to: bad)
            let r = try run(plutil, [url.path, bad.path])
            #expect(r.status == 1)
            #expect(r.stderr.contains("bad.plist: XML property list, line 1"))
            #expect(r.stdout.contains("test.plist: OK"))
            let missing = try run(plutil, ["-lint", "/nonexistent/x.plist"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("/nonexistent/x.plist"))
        }
    }

    @Test("-convert rewrites in place, to -o, or with -e; - is standard input and output")
    func convert() throws {
        try withFile(#"{ "a" = (1, 2); }"#) { url in
            #expect(try run(plutil, ["-convert", "binary1", url.path]).status == 0)
            #expect(try Data(contentsOf: url).prefix(8) == Data("bplist00".utf8))
            #expect(try run(plutil, ["-convert", "xml1", "-e", "xml", url.path]).status == 0)
            let xml = url.deletingPathExtension().appendingPathExtension("xml")
            #expect(try String(contentsOf: xml, encoding: .utf8).contains("<string>1</string>"))
            let json = try run(plutil, ["-convert", "json", "-o", "-", url.path])
            #expect(json.stdout == #"{"a":["1","2"]}"#)
            let piped = try run(plutil, ["-convert", "json", "-r", "-o", "-", "-"], input: Data("<plist><true/></plist>".utf8))
            #expect(piped.stdout == "true\n")
            let bad = try run(plutil, ["-convert", "json", "-o", "-", "-"], input: Data("<plist><date>2001-01-01T00:00:00Z</date></plist>".utf8))
            #expect(bad.status == 1)
            #expect(bad.stderr.contains("cannot be represented in JSON"))
        }
    }

    @Test("-convert xml1 of a binary file over a megabyte (written in pieces while made): decoding's bytes, in place or to -o; damaged: decoding's error, nothing replaced")
    func largeBinaryToXML() throws {
        var values = RandomValues(rng: SeededRandom(seed: 31), leafKinds: PropertyList.Kind.allCases)
        var entries: [LiteralString: PropertyList] = [:]
        for k in 0..<20_000 { entries[LiteralString("key\(k)")] = values.value() }
        let document = PropertyList.dictionary(entries)
        let binary = try document.encoded(as: .binary)
        #expect(binary.count > 1 << 20)
        // The last object's marker broken: met at the end of the walk, after pieces were written.
        var damaged = binary
        let trailer = damaged.count - 32
        let offsetSize = Int(damaged[trailer + 6])
        let count = damaged[(trailer + 8)..<(trailer + 16)].reduce(0) { $0 << 8 | Int($1) }
        let table = damaged[(trailer + 24)..<(trailer + 32)].reduce(0) { $0 << 8 | Int($1) }
        let last = damaged[(table + (count - 1) * offsetSize)..<(table + count * offsetSize)].reduce(0) { $0 << 8 | Int($1) }
        damaged[last] = 0x7F
        try expectConversion("xml1", of: binary, gives: try document.encoded(as: .xml), damaged: damaged, mode: 0o600)
    }

    @Test("-convert binary1 of XML (written from the reader's compact nodes): decoding's bytes, in place or to -o, the mode kept; damaged: decoding's error, nothing replaced")
    func xmlToBinary() throws {
        var values = RandomValues(rng: SeededRandom(seed: 32), leafKinds: PropertyList.Kind.allCases)
        var entries: [LiteralString: PropertyList] = [:]
        for k in 0..<5_000 { entries[LiteralString("key\(k % 4_000)")] = values.value() }
        let document = PropertyList.dictionary(entries)
        let xml = try document.encoded(as: .xml)
        // Broken near its end, after most of it was read.
        var damaged = xml
        let close = try #require(damaged.ranges(of: Array("</dict>".utf8)).last)
        damaged.replaceSubrange(close, with: Array("</dixt>".utf8))
        try expectConversion("binary1", of: xml, gives: try document.encoded(as: .binary), damaged: damaged, mode: 0o640)
    }

    /// `plutil -convert format` of `input` (a file of `mode`) gives `expected`
    /// to `-o` and in place, the mode kept; of `damaged`, exit 1 with
    /// decoding's message word for word, neither file replaced and nothing
    /// left beside them.
    func expectConversion(_ format: String, of input: [UInt8], gives expected: [UInt8], damaged: [UInt8], mode: Int,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in.plist"), output = dir.appendingPathComponent("out.plist")
        try Data(input).write(to: file)
        #expect(chmod(file.path, mode_t(mode)) == 0, sourceLocation: sourceLocation)
        #expect(try run(plutil, ["-convert", format, "-o", output.path, file.path]).status == 0, sourceLocation: sourceLocation)
        #expect(try [UInt8](Data(contentsOf: output)) == expected, sourceLocation: sourceLocation)
        #expect(try run(plutil, ["-convert", format, file.path]).status == 0, sourceLocation: sourceLocation)
        #expect(try [UInt8](Data(contentsOf: file)) == expected, sourceLocation: sourceLocation)
        #expect((try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) == mode, sourceLocation: sourceLocation)
        try Data(damaged).write(to: file)
        let decodingError = try #require(throws: PropertyListError.self, sourceLocation: sourceLocation) { _ = try PropertyList(decoding: damaged) }
        let r = try run(plutil, ["-convert", format, "-o", output.path, file.path])
        #expect(r.status == 1, sourceLocation: sourceLocation)
        #expect(r.stderr == "\(file.path): \(decodingError.description)\n", sourceLocation: sourceLocation)
        #expect(try [UInt8](Data(contentsOf: output)) == expected, sourceLocation: sourceLocation)
        #expect(try [UInt8](Data(contentsOf: file)) == damaged, sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["in.plist", "out.plist"], sourceLocation: sourceLocation)
    }

    @Test("-p prints the human-readable form")
    func print() throws {
        try withFile("<plist><dict><key>b</key><true/><key>a</key><array><string>x</string><integer>2</integer></array></dict></plist>") { url in
            let out = try run(plutil, ["-p", url.path]).stdout
            #expect(out == """
                {
                  "a" => [
                    0 => "x"
                    1 => 2
                  ]
                  "b" => true
                }

                """)
        }
    }

    @Test("-insert, -replace, -remove edit the file and keep its format")
    func editing() throws {
        try withFile("{ list = (a); }") { url in
            #expect(try run(plutil, ["-insert", "n", "-integer", "5", url.path]).status == 0)
            #expect(try run(plutil, ["-insert", "list", "-string", "b", "-append", url.path]).status == 0)
            #expect(try run(plutil, ["-replace", "list.0", "-bool", "YES", url.path]).status == 0)
            #expect(try run(plutil, ["-insert", "d", "-dictionary", url.path]).status == 0)
            #expect(try run(plutil, ["-insert", "d.when", "-date", "2024-01-02T03:04:05Z", url.path]).status == 0)
            #expect(try run(plutil, ["-insert", "raw", "-data", "AAEC", url.path]).status == 0)
            #expect(try run(plutil, ["-insert", "x", "-xml", "<array><real>1.5</real></array>", url.path]).status == 0)
            #expect(try run(plutil, ["-remove", "x.0", url.path]).status == 0)
            let dup = try run(plutil, ["-insert", "n", "-integer", "6", url.path])
            #expect(dup.status == 1)
            #expect(dup.stderr.contains("already exists"))
            let v = try PropertyList(decoding: Data(contentsOf: url))
            #expect(v == ["list": [true, "b"], "n": 5, "d": ["when": .date(PropertyList.date(from: "2024-01-02T03:04:05Z")!)], "raw": .data(Data([0, 1, 2])), "x": []])
            // the file was old-style; it is still old-style text
            #expect(try String(contentsOf: url, encoding: .utf8).hasPrefix("{"))
        }
    }

    @Test("-extract and -type, with -expect")
    func extract() throws {
        try withFile("<plist><dict><key>a</key><dict><key>b</key><integer>3</integer></dict><key>d</key><data>AAEC</data></dict></plist>") { url in
            #expect(try run(plutil, ["-extract", "a.b", "raw", url.path]).stdout == "3\n")
            #expect(try run(plutil, ["-extract", "a.b", "raw", "-n", url.path]).stdout == "3")
            #expect(try run(plutil, ["-extract", "d", "raw", url.path]).stdout == "AAEC\n")
            #expect(try run(plutil, ["-extract", "a", "json", url.path]).stdout == #"{"b":3}"#)
            #expect(try run(plutil, ["-type", "a", url.path]).stdout == "dictionary\n")
            #expect(try run(plutil, ["-extract", "a.b", "raw", "-expect", "integer", url.path]).status == 0)
            let wrong = try run(plutil, ["-extract", "a.b", "raw", "-expect", "string", url.path])
            #expect(wrong.status == 1)
            // The error stands alone (no usage after a file's or a key path's error), in English.
            #expect(wrong.stderr == "\(url.path): value at key path a.b is an integer, expected string\n", "\(wrong.stderr)")
            let missing = try run(plutil, ["-extract", "a.zz", "xml1", url.path])
            #expect(missing.status == 1)
            #expect(missing.stderr == "\(url.path): no value at key path a.zz\n", "\(missing.stderr)")
        }
    }

    @Test("-create and usage errors")
    func createAndUsage() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("new.plist")
        #expect(try run(plutil, ["-create", "binary1", url.path]).status == 0)
        #expect(try PropertyList(decoding: Data(contentsOf: url)) == [:])
        #expect(try run(plutil, ["-help"]).stdout.contains("-convert fmt"))
        let unknown = try run(plutil, ["-frobnicate", url.path])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("unrecognized option: -frobnicate"))
        #expect(try run(plutil, ["-convert", "yaml", url.path]).status == 1)
        #expect(try run(plutil, []).status == 1)
    }
}
