import Foundation
import Testing
@testable import PropertyList

/// Inputs the fuzzers (`Fuzz/run.sh`) found to break something, kept so the
/// fix stays fixed. Each must read (or be rejected) without a crash, and a
/// value it reads must survive every writer and reader.
@Suite("Fuzzer regressions")
struct FuzzRegressionTests {
    static let directory = repositoryRoot.appendingPathComponent("Tests/PropertyListTests/FuzzRegressions")
    static let files: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()

    @Test("every kept input reads, writes and reads back", arguments: files)
    func regression(file: String) throws {
        let bytes = try Data(contentsOf: Self.directory.appendingPathComponent(file))
        guard let value = try? PropertyList(decoding: bytes) else { return }
        for format in PropertyListFormat.allCases {
            guard let encoded = try? value.encoded(as: format) else { continue }
            #expect(throws: Never.self, "\(format)") { try PropertyList(decoding: encoded, format: format) }
        }
    }

    @Test("a date in year -31686769 is written in old-style form that reads back")
    func negativeYearDate() throws {
        let d = PropertyList.date(Date(timeIntervalSinceReferenceDate: -1e15))
        #expect(try PropertyList(decoding: d.encoded(as: .openStep)) == d)
    }
}
