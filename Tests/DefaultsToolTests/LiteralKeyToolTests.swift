import Foundation
import LookalikeStrings
import PropertyList
import Testing
import TestSupport

/// `defaults` keeps keys and values that look alike but differ in their
/// scalars, as macOS's does (CFPreferences compares code units).
@Suite("defaults: lookalike keys and values, printed values", .offThePool, .timeLimit(.minutes(10)))
struct LiteralKeyToolTests {
    @Test("import, export, read and read of one key keep every lookalike key's scalars")
    func importExport() throws {
        let t = try ToolSandbox()
        var gen = Lookalikes()
        for round in 0..<4 {
            let values = PropertyList.dictionary(gen.dictionary())
            let input = t.root.appendingPathComponent("in-\(round).plist")
            try Data(values.encoded(as: round % 2 == 0 ? .xml : .binary)).write(to: input)
            let domain = "com.example.nf\(round)"
            let imported = try t.defaults("import", domain, input.path)
            #expect(imported.status == 0, "\(imported.stderr)")
            let file = try t.file(domain)
            #expect(Lookalikes.sameScalars(file, values), "seed \(gen.seed): the file holds \(Lookalikes.describe(file))")
            let exported = try t.defaults("export", domain, "-")
            #expect(exported.status == 0, "\(exported.stderr)")
            let back = try PropertyList(decoding: Array(exported.stdout.utf8))
            #expect(Lookalikes.sameScalars(back, values), "seed \(gen.seed), round \(round): export gave \(Lookalikes.describe(back))")
            // Each key read alone answers its own value.
            for (key, value) in values.dictionaryValue! {
                let one = try t.run(["read", domain, key.string])
                #expect(one.status == 0, "\(one.stderr)")
                if case .string(let s) = value {
                    #expect(Array(one.stdout.unicodeScalars) == Array((TerminalExpectation.topLevel(s) + "\n").unicodeScalars),
                            "seed \(gen.seed): \(Lookalikes.describe(.string(key.string))) read \(Lookalikes.describe(.string(one.stdout)))")
                }
            }
        }
    }

    @Test("a top-level negative integer prints bare, as macOS's; inside collections it stays quoted")
    func negativeInteger() throws {
        let t = try ToolSandbox()
        #expect(try t.defaults("write", "com.x", "neg", "-integer", "-7").status == 0)
        let r = try t.defaults("read", "com.x", "neg")
        #expect(r.status == 0)
        #expect(r.stdout == "-7\n")
        #expect(try t.defaults("write", "com.x", "list", "-array", "-int", "-7", "-int", "7").status == 0)
        #expect(try t.defaults("read", "com.x", "list").stdout == "(\n    \"-7\",\n    7\n)\n")
        #expect(try t.defaults("write", "com.x", "real", "-float", "-7.5").status == 0)
        #expect(try t.defaults("read", "com.x", "real").stdout == "-7.5\n")
    }
}

/// What `defaults read D K` prints for a top-level string: macOS escapes
/// non-ASCII UTF-16 units (`\351` up to U+00FF, `\u0301` above).
enum TerminalExpectation {
    static func topLevel(_ s: String) -> String {
        var out = ""
        for unit in s.utf16 {
            if unit < 0x80 { out.unicodeScalars.append(Unicode.Scalar(UInt8(unit))) }
            else if unit <= 0xFF { out += "\\" + String(unit, radix: 8) }
            else { out += "\\u" + String(repeating: "0", count: 4 - String(unit, radix: 16).count) + String(unit, radix: 16) }
        }
        return out
    }
}
