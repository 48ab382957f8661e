import Foundation
import Testing
import TestSupport
@testable import PropertyList

/// `plutil -convert xml1` of a binary file writes the XML while it reads the
/// file, without building the value (`BinaryXMLWalk.swift`). It must give
/// what decoding and writing give, byte for byte, error for error.
@Suite("Binary to XML without the value", .timeLimit(.minutes(10)))
struct BinaryToXMLTests {
    typealias Outcome = Result<[UInt8], Refusal>

    /// An error, compared by everything it says.
    struct Refusal: Error, Equatable {
        var description: String
    }

    /// Decoding, then writing: the reference.
    static func decodedAndWritten(_ file: [UInt8]) -> Outcome {
        file.withUnsafeBytes { raw in
            do throws(PropertyListError) { return .success(XMLWriter.write(try BinaryReader.read(raw)).bytes()) } catch {
                return .failure(Refusal(description: error.description))
            }
        }
    }

    /// What `plutil` now does.
    static func converted(_ file: [UInt8]) -> Outcome {
        file.withUnsafeBytes { raw in
            do throws(PropertyListError) { return .success(try PropertyList.xmlOutput(fromBinary: raw).bytes()) } catch {
                return .failure(Refusal(description: error.description))
            }
        }
    }

    /// The walk alone, without the decoding it falls back to.
    static func walked(_ file: [UInt8]) -> [UInt8]? {
        file.withUnsafeBytes { raw in try? BinaryXMLWalk.xml(raw).bytes() }
    }

    /// Whether the walk alone refuses `file` (a Bool: a failed expectation
    /// then prints no document).
    static func refusedByTheWalk(_ file: [UInt8]) -> Bool { walked(file) == nil }

    /// Arrays nested `levels` deep, each holding the next twice, around
    /// `leaf`: 2^levels leaves once expanded (60 levels: a bomb).
    static func doubling(levels: Int, leaf: [UInt8]) -> [UInt8] {
        file((0..<levels).map { k in [0xA2, UInt8(k + 1), UInt8(k + 1)] } + [leaf])
    }

    /// The walk refuses `f`, and `plutil`'s conversion gives what decoding
    /// and writing give, which `decodes` says is a document (or an error).
    static func expectDecodingsResult(_ f: [UInt8], decodes: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(refusedByTheWalk(f), sourceLocation: sourceLocation)
        let expected = decodedAndWritten(f)
        if case .success = expected, !decodes { Issue.record("decoding accepted a file it refuses", sourceLocation: sourceLocation) }
        if case .failure = expected, decodes { Issue.record("decoding refused a file it reads", sourceLocation: sourceLocation) }
        #expect(converted(f) == expected, sourceLocation: sourceLocation)
    }

    static func file(_ objects: [[UInt8]], top: UInt64 = 0, offsetSize: UInt8 = 1, refSize: UInt8 = 1) -> [UInt8] {
        BinaryFormatTests.file(objects: objects, offsetSize: offsetSize, refSize: refSize, top: top)
    }

    @Test("random documents of every kind of value: the same XML as decoding and writing, from the walk itself")
    func randomDocuments() throws {
        var values = RandomValues(rng: SeededRandom(seed: 4242), leafKinds: PropertyList.Kind.allCases)
        for _ in 0..<400 {
            let value = Bool.random(using: &values.rng) ? values.document() : values.value()
            let binary = try value.encoded(as: .binary)
            let expected = Self.decodedAndWritten(binary)
            #expect(Self.converted(binary) == expected)
            // The walk wrote it, not the fallback.
            #expect(Self.walked(binary).map(Outcome.success) == expected, "\(value)")
            // In pieces (as plutil writes a large file), the same bytes.
            var pieces: [[UInt8]] = []
            try binary.withUnsafeBytes { raw in
                try PropertyList.xmlPieces(fromBinary: raw, pieceSize: 100) { pieces.append(Array($0)) }
            }
            #expect(.success(Array(pieces.joined())) == expected)
            #expect(pieces.dropLast().allSatisfy { $0.count >= 100 })
        }
    }

    @Test("keys out of order are put in order; of a repeated key the last wins, its other values still checked")
    func keyOrderAndRepeatedKeys() throws {
        // { "b": 1, "a": 2, "b": 3 } with the keys in file order b, a, b.
        let repeated = Self.file([[0xD3, 1, 2, 3, 4, 5, 6], [0x51, 0x62], [0x51, 0x61], [0x51, 0x62], [0x10, 1], [0x10, 2], [0x10, 3]])
        let xml = try #require(Self.walked(repeated))
        #expect(String(decoding: xml, as: UTF8.self).contains("<key>a</key>\n\t<integer>2</integer>\n\t<key>b</key>\n\t<integer>3</integer>\n"))
        #expect(.success(xml) == Self.decodedAndWritten(repeated))
        // The same with the overridden value malformed (marker 0x7F): refused, as decoding refuses it.
        let badOverridden = Self.file([[0xD3, 1, 2, 3, 4, 5, 6], [0x51, 0x62], [0x51, 0x61], [0x51, 0x62], [0x7F], [0x10, 2], [0x10, 3]])
        #expect(Self.refusedByTheWalk(badOverridden))
        guard case .failure(let refusal) = Self.converted(badOverridden) else { Issue.record("accepted"); return }
        #expect(.failure(refusal) == Self.decodedAndWritten(badOverridden))
        // A key in UTF-16 equals the same key in ASCII (two keys that look alike are two keys:
        // "é" precomposed and decomposed stay apart); Latin-1 bytes are read as ISO-8859-1.
        let utf16 = Self.file([[0xD4, 1, 2, 3, 4, 5, 6, 7, 8],
                               [0x51, 0x61], [0x61, 0x00, 0x61], [0x61, 0x00, 0xE9], [0x62, 0x00, 0x65, 0x03, 0x01],
                               [0x10, 1], [0x10, 2], [0x10, 3], [0x10, 4]])
        let out = try #require(Self.walked(utf16))
        #expect(.success(out) == Self.decodedAndWritten(utf16))
        #expect(String(decoding: out, as: UTF8.self).components(separatedBy: "<key>").count == 4)
        let latin1 = Self.file([[0xD2, 1, 2, 3, 4], [0x51, 0xE9], [0x52, 0x41, 0xFF], [0x51, 0x3C], [0x53, 0x26, 0xE9, 0x3E]])
        #expect(Self.walked(latin1).map(Outcome.success) == Self.decodedAndWritten(latin1))
        #expect(String(decoding: Self.walked(latin1)!, as: UTF8.self).contains("<key>Aÿ</key>\n\t<string>&amp;é&gt;</string>"))
    }

    @Test("a key that is not a string, a cycle, nesting past 512 levels, a decompression bomb: refused as decoding refuses them")
    func refusals() throws {
        let numberKey = Self.file([[0xD1, 1, 2], [0x10, 1], [0x51, 0x61]])
        var deep: [[UInt8]] = (0..<600).map { k in [0xA1, UInt8((k + 1) >> 8), UInt8((k + 1) & 0xFF)] }
        deep.append([0x08])
        let files = [numberKey, Self.file([[0xA1, 0x00]]), Self.file([[0xD1, 1, 0], [0x51, 0x61]]),
                     Self.file(deep, offsetSize: 2, refSize: 2), Self.doubling(levels: 60, leaf: [0x08])]
        for f in files { Self.expectDecodingsResult(f, decodes: false) }
    }

    @Test("shared strings and data are written where each reference is; a shared collection sends the file to decoding, with the same result")
    func sharing() throws {
        // ["k", "k", <data>, <data>, {"k": "k"}]: leaves shared, no collection shared.
        let leaves = Self.file([[0xA5, 1, 1, 2, 2, 3], [0x51, 0x6B], [0x43, 1, 2, 3], [0xD1, 1, 1]])
        let xml = try #require(Self.walked(leaves))
        #expect(.success(xml) == Self.decodedAndWritten(leaves))
        #expect(String(decoding: xml, as: UTF8.self).components(separatedBy: "<data>").count == 3)
        // [x, x, [x]] with x = { "k": <data 3 bytes> }, and 16 levels of doubling (131,071
        // objects): the walk refuses them, the result is decoding's, bytes for bytes.
        let shared = Self.file([[0xA3, 1, 1, 2], [0xD1, 3, 4], [0xA1, 1], [0x51, 0x6B], [0x43, 1, 2, 3]])
        for f in [shared, Self.doubling(levels: 16, leaf: [0x51, 0x78])] { Self.expectDecodingsResult(f, decodes: true) }
    }

    @Test("a bomb of nested shared arrays is refused after writing almost nothing")
    func bombIsCheap() throws {
        // 60 levels of [k+1, k+1]: 2^60 objects once expanded. The reader's cache refuses it at
        // once; the walk stops at the first collection met twice, near the bottom.
        let f = Self.doubling(levels: 60, leaf: [0x08])
        var written = 0
        let walked: Bool = f.withUnsafeBytes { raw in
            (try? PropertyList.xmlPieces(fromBinary: raw, pieceSize: 1) { written += $0.count }) != nil
        }
        #expect(!walked)
        // The header and 60 nested <array> lines, up to the second reference at the bottom.
        #expect(written < 4_096, "\(written) bytes written before the refusal")
        guard case .failure(let refusal) = Self.converted(f) else { Issue.record("accepted"); return }
        #expect(refusal.description.contains("decompression bomb"))
    }

    @Test("a collection the reader has cached is not checked for depth again: the walk refuses it, the result is decoding's")
    func depthAfterCaching() throws {
        // Object 1 (an array of one integer) is met at depth 1, then at depth 2, then at the end
        // of a chain of 511 arrays, which puts its integer at depth 513. The reader checks depth
        // the first two times only (it caches the array then); the walk refuses a collection
        // met twice. Decoding gives the document.
        var objects: [[UInt8]] = [[0xA3, 0x00, 0x01, 0x00, 0x03, 0x00, 0x04], [0xA1, 0x00, 0x02], [0x10, 0x07], [0xA1, 0x00, 0x01]]
        for k in 0..<511 {
            let next = k == 510 ? 1 : 5 + k
            objects.append([0xA1, UInt8(next >> 8), UInt8(next & 0xFF)])
        }
        Self.expectDecodingsResult(Self.file(objects, offsetSize: 2, refSize: 2), decodes: true)
    }

    @Test("ten thousand damaged files: the same bytes or the same error as decoding and writing")
    func damagedFiles() throws {
        var values = RandomValues(rng: SeededRandom(seed: 77), leafKinds: PropertyList.Kind.allCases)
        var seeds: [[UInt8]] = []
        for _ in 0..<20 { seeds.append(try values.document().encoded(as: .binary)) }
        seeds.append(Self.file([[0xD3, 1, 2, 3, 4, 5, 6], [0x51, 0x62], [0x51, 0x61], [0x51, 0x62], [0x10, 1], [0x10, 2], [0x10, 3]]))
        seeds.append(Self.file([[0xA3, 1, 1, 2], [0xD1, 3, 4], [0xA1, 1], [0x51, 0x6B], [0x43, 1, 2, 3]]))
        var walkedSome = 0
        for n in 0..<10_000 {
            var f = seeds[n % seeds.count]
            for _ in 0..<Int.random(in: 1...3, using: &values.rng) {
                let at = Int.random(in: 8..<f.count, using: &values.rng)
                f[at] = Bool.random(using: &values.rng) ? UInt8.random(in: 0...255, using: &values.rng) : f[at] ^ (1 << UInt8.random(in: 0...7, using: &values.rng))
            }
            let expected = Self.decodedAndWritten(f)
            #expect(Self.converted(f) == expected)
            if let walked = Self.walked(f) {
                walkedSome += 1
                #expect(.success(walked) == expected)
            }
        }
        #expect(walkedSome > 1_000)
    }

    @Test("the corpus: every binary file, and every readable file written as binary", .requires(.shared))
    func corpus() async throws {
        try await offThePool { () throws in
            var binaries = 0, rewritten = 0
            for (name, bytes) in plistCorpusFiles() {
                if bytes.starts(with: Array("bplist0".utf8)) {
                    binaries += 1
                    #expect(Self.converted(bytes) == Self.decodedAndWritten(bytes), "\(name)")
                } else if let v = try? PropertyList(decoding: bytes) {
                    let binary = try v.encoded(as: .binary)
                    rewritten += 1
                    #expect(Self.walked(binary).map(Outcome.success) == Self.decodedAndWritten(binary), "\(name)")
                }
            }
            #expect(binaries > 10 && rewritten > 300, "\(binaries) binary files, \(rewritten) rewritten")
        }
    }
}
