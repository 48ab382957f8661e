import Foundation
import Testing
import TestSupport
@testable import PropertyList

/// `../shared/corpora/plist`: 525 real files. Every valid file must read to
/// its expected value, every invalid one must be rejected with a message,
/// none may crash or hang. Skipped when `../shared` is absent.
@Suite("Conformance corpus", .timeLimit(.minutes(10)), .requires(.shared))
struct CorpusTests {
    @Test("check.py passes every file")
    func corpus() async throws {
        // Long synchronous work: off the test run's cooperative pool (TestSupport/OffThePool.swift).
        try await offThePool { () throws in
            let dir = sharedDirectory!.appendingPathComponent("corpora/plist")
            let tool = productsDirectory.appendingPathComponent("plist-canonical").path
            let python = PlistlibCrossCheckTests.python ?? "/usr/bin/python3"
            let r = try run(python, [dir.appendingPathComponent("check.py").path, "-j", "2", "--", tool, "canonical-json", "{}"])
            let last = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
            #expect(r.status == 0, "\(r.stdout.suffix(3000))")
            #expect(last.hasSuffix(" 0 failed"), "\(last)")
        }
    }

    @Test("every corpus file finishes through every writer without a crash")
    func writersTakeEveryReadableFile() async throws {
        // Long synchronous work: off the test run's cooperative pool (TestSupport/OffThePool.swift).
        try await offThePool { () throws in
            var read = 0
            var written: [PropertyListFormat: Int] = [:]
            for (name, data) in plistCorpusFiles() where !name.hasSuffix(".json") {
                guard let v = try? PropertyList(decoding: data) else { continue }
                read += 1
                for format in PropertyListFormat.allCases {
                    // XML keeps whole seconds of dates, as Apple's writer does.
                    if format == .xml, Self.hasFractionalDate(v) { continue }
                    let bytes: [UInt8]
                    do { bytes = try v.encoded(as: format) } catch {
                        // The refusals the writers document: JSON holds no dates, data or UIDs; the
                        // old-style form no UIDs and whole seconds of dates only. Nothing else.
                        let documented = format == .json || (format == .openStep && (Self.hasUID(v) || Self.hasFractionalDate(v)))
                        #expect(documented, "\(name): the \(format) writer refused it: \(error)")
                        continue
                    }
                    written[format, default: 0] += 1
                    #expect(try PropertyList(decoding: bytes, format: format) == v, "\(name) via \(format)")
                }
                _ = v.description
            }
            #expect(read > 300)
            // Every file read went through the binary and XML writers (XML less those with fractional dates).
            #expect(written[.binary] == read, "\(written)")
            #expect(written[.json, default: 0] > 0 && written[.openStep, default: 0] > 0, "\(written)")
        }
    }

    static func hasUID(_ v: PropertyList) -> Bool {
        switch v {
        case .uid: true
        case .array(let a): a.contains(where: hasUID)
        case .dictionary(let d): d.values.contains(where: hasUID)
        default: false
        }
    }

    static func hasFractionalDate(_ v: PropertyList) -> Bool {
        switch v {
        case .date(let d): d.timeIntervalSinceReferenceDate.rounded(.down) != d.timeIntervalSinceReferenceDate
        case .array(let a): a.contains(where: hasFractionalDate)
        case .dictionary(let d): d.values.contains(where: hasFractionalDate)
        default: false
        }
    }
}
