import Foundation
import Testing
import TestSupport
@testable import ConfigurationProfiles
import PropertyList

/// `../shared/corpora/profiles`: 39 profiles (34 published by administrators,
/// 5 derived) with the managed preferences a correct reader derives, or
/// "rejected". Each is read by the built `profiles show --path F --output json`
/// and compared with the expectation by Python's `json`, which keeps `true`,
/// `1` and `1.0` apart.
@Suite("Configuration-profile corpus", .offThePool, .timeLimit(.minutes(10)), .requires(.shared, .python))
struct ProfileCorpusTests {
    static var folder: URL { Requirement.sharedDirectory!.appendingPathComponent("corpora/profiles") }

    static let files: [String] = {
        guard let shared = Requirement.sharedDirectory else { return [] }
        let folder = shared.appendingPathComponent("corpora/profiles")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".mobileconfig") }.sorted()
    }()

    @Test("the corpus holds 39 profiles")
    func count() { #expect(Self.files.count == 39) }

    @Test("each profile gives exactly the expected managed preferences, or is refused where marked", arguments: files)
    func profile(file: String) throws {
        let path = Self.folder.appendingPathComponent(file).path
        let expected = try Data(contentsOf: URL(fileURLWithPath: path + ".expected.json"))
        let rejected = (try JSONSerialization.jsonObject(with: expected) as? [String: Any])?["rejected"] as? Bool == true
        let r = try runTool("profiles", ["show", "--path", path, "--output", "json"])
        if rejected {
            #expect(r.status == 1, "\(file) should be refused; it gave \(r.stdout)")
            #expect(r.stderr.hasPrefix("profiles: \(path): "), "the error names the file: \(r.stderr)")
            #expect(r.stdout.isEmpty)
            return
        }
        try #require(r.status == 0, "\(file): \(r.stderr)")
        let compare = try runTool(Requirement.pythonPath!, ["-c", Self.comparison, path + ".expected.json"], input: Data(r.stdout.utf8), absolute: true)
        #expect(compare.status == 0, "\(file): \(compare.stdout)\(compare.stderr)")
    }

    /// Compares standard input's JSON with the file's, types strictly (bool, int, float apart), `rejected`/`error` aside.
    static let comparison = """
        import json, sys
        got = json.load(sys.stdin)
        want = json.load(open(sys.argv[1]))
        for k in ("rejected", "error"): want.pop(k, None)
        want.setdefault("forced", {}); want.setdefault("set_once", {}); want.setdefault("ignored_payloads", [])
        def same(a, b, at):
            if type(a) is not type(b): return "%s: %r (%s) against %r (%s)" % (at, a, type(a).__name__, b, type(b).__name__)
            if isinstance(a, dict):
                if set(a) != set(b): return "%s: keys %s against %s" % (at, sorted(set(a) - set(b)), sorted(set(b) - set(a)))
                for k in a:
                    d = same(a[k], b[k], at + "/" + k)
                    if d: return d
            elif isinstance(a, list):
                if len(a) != len(b): return "%s: %d items against %d" % (at, len(a), len(b))
                for i, (x, y) in enumerate(zip(a, b)):
                    d = same(x, y, "%s[%d]" % (at, i))
                    if d: return d
            elif a != b: return "%s: %r against %r" % (at, a, b)
            return None
        d = same(got, want, "")
        if d: print("got, against expected:", d); sys.exit(1)
        """
}
