import Foundation
import Testing
import TestSupport
@testable import PropertyList

/// Python's plistlib is an independent implementation of the XML and binary
/// formats: what it writes we read, what we write it reads, and both sides
/// agree on the value (compared through a JSON rendering of the value).
@Suite("Cross-check with Python's plistlib", .offThePool, .timeLimit(.minutes(10)), .requires(.python))
struct PlistlibCrossCheckTests {
    static var python: String? { pythonPath }

    /// A Python program that reads a plist from stdin and prints a canonical rendering,
    /// or with `write FMT` reads that rendering and writes a plist.
    static let script = #"""
    import sys, plistlib, json, base64, datetime
    EPOCH = datetime.datetime(2001, 1, 1)
    def canon(o):
        if isinstance(o, bool): return {"b": o}
        if isinstance(o, int): return {"i": str(o)}
        if isinstance(o, float): return {"r": repr(o)}
        if isinstance(o, str): return {"s": o}
        if isinstance(o, bytes): return {"d": base64.b64encode(o).decode()}
        if isinstance(o, datetime.datetime): return {"t": (o - EPOCH).total_seconds()}
        if isinstance(o, plistlib.UID): return {"u": o.data}
        if isinstance(o, list): return {"a": [canon(x) for x in o]}
        if isinstance(o, dict): return {"o": {k: canon(v) for k, v in o.items()}}
        raise TypeError(type(o))
    def uncanon(c):
        (k, v), = c.items()
        if k == "b": return v
        if k == "i": return int(v)
        if k == "r": return float(v)
        if k == "s": return v
        if k == "d": return base64.b64decode(v)
        if k == "t": return EPOCH + datetime.timedelta(seconds=v)
        if k == "u": return plistlib.UID(v)
        if k == "a": return [uncanon(x) for x in v]
        return {kk: uncanon(vv) for kk, vv in v.items()}
    if sys.argv[1] == "read":
        print(json.dumps(canon(plistlib.loads(sys.stdin.buffer.read())), sort_keys=True))
    else:
        fmt = plistlib.FMT_XML if sys.argv[2] == "xml" else plistlib.FMT_BINARY
        sys.stdout.buffer.write(plistlib.dumps(uncanon(json.loads(sys.stdin.read())), fmt=fmt, sort_keys=True))
    """#

    /// The same canonical rendering, made here.
    static func canon(_ v: PropertyList) -> Any {
        switch v {
        case .boolean(let b): return ["b": b]
        case .integer(let n): return ["i": n.description]
        case .real(let d): return ["r": pythonRepr(d)]
        case .string(let s): return ["s": s]
        case .data(let d): return ["d": d.base64EncodedString()]
        case .date(let d): return ["t": d.timeIntervalSinceReferenceDate]
        case .uid(let u): return ["u": u]
        case .array(let a): return ["a": a.map(canon)]
        case .dictionary(let d): return ["o": d.keyedByString(canon)]
        }
    }

    static func pythonRepr(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d > 0 ? "inf" : "-inf" }
        return "\(d)"
    }

    static func json(_ v: PropertyList) throws -> Data {
        try JSONSerialization.data(withJSONObject: canon(v), options: [.sortedKeys])
    }

    /// plistlib has UIDs in binary only, and refuses control characters in XML.
    static func values(_ format: PropertyListFormat) -> [PropertyList] {
        let alphabet = Array("abcXYZ019 _-.:/\"'\\\n\t<>&;=(){}é€😀中")
        var kinds: [PropertyList.Kind] = [.string, .integer, .boolean, .date, .data]
        if format == .binary { kinds.append(.uid) }
        var gen = RandomValues(rng: SeededRandom(seed: 7), leafKinds: kinds, alphabet: alphabet)
        // plistlib stores reals as Python floats; repr() and Swift agree on the shortest form.
        var withReals = RandomValues(rng: SeededRandom(seed: 8), leafKinds: [.real, .string], alphabet: alphabet)
        return (0..<25).map { _ in gen.document() } + (0..<15).map { _ in withReals.document() }
    }

    func pythonReads(_ bytes: [UInt8]) throws -> Any {
        let r = try run(Self.python!, ["-c", Self.script, "read"], input: Data(bytes))
        #expect(r.status == 0, "plistlib failed: \(r.stderr)")
        return try JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
    }

    @Test("plistlib reads what we write", arguments: [PropertyListFormat.xml, .binary])
    func theyRead(format: PropertyListFormat) throws {
        for v in Self.values(format) {
            let theirs = try pythonReads(v.encoded(as: format))
            let ours = try JSONSerialization.jsonObject(with: Self.json(v))
            #expect(NSDictionary(dictionary: ["v": theirs]) == NSDictionary(dictionary: ["v": ours]), "\(v)")
        }
    }

    @Test("we read what plistlib writes", arguments: ["xml", "binary"])
    func weRead(format: String) throws {
        for v in Self.values(format == "xml" ? .xml : .binary) {
            let r = try run(Self.python!, ["-c", Self.script, "write", format], input: Self.json(v))
            #expect(r.status == 0, "plistlib failed: \(r.stderr)")
            let ours = try PropertyList(decoding: r.stdoutData)
            let mine = try JSONSerialization.jsonObject(with: Self.json(ours))
            let expected = try JSONSerialization.jsonObject(with: Self.json(v))
            #expect(NSDictionary(dictionary: ["v": mine]) == NSDictionary(dictionary: ["v": expected]), "\(v)")
        }
    }
}
