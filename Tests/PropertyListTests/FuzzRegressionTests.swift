import Foundation
import Testing
@testable import PropertyList

/// Inputs the fuzzers (`Fuzz/run.sh`) found to break something, kept so the
/// fix stays fixed. Each must read (or be rejected) without a crash, and a
/// value it reads must survive every writer and reader.
@Suite("Fuzzer regressions", .timeLimit(.minutes(10)))
struct FuzzRegressionTests {
    static let directory = repositoryRoot.appendingPathComponent("Tests/PropertyListTests/FuzzRegressions")
    static let files: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()

    @Test("every kept input reads (or is refused with a PropertyListError), writes and reads back the same", arguments: files)
    func regression(file: String) throws {
        let bytes = try Data(contentsOf: Self.directory.appendingPathComponent(file))
        let value: PropertyList
        do { value = try PropertyList(decoding: bytes) } catch { return }  // typed: only a PropertyListError reaches here
        var written = 0
        for format in PropertyListFormat.allCases {
            guard let encoded = try? value.encoded(as: format) else { continue }  // JSON holds no dates or data
            written += 1
            let back = try PropertyList(decoding: encoded, format: format)
            if format == .binary {
                // The binary format keeps every type and every bit.
                #expect(back == value, "\(file): binary read back \(back), not \(value)")
            } else {
                // The text formats may round (XML dates to the second) or lose types (old-style
                // numbers are strings); what they write must at least be what they read back.
                #expect(try back.encoded(as: format) == encoded, "\(file): \(format) does not read back what it wrote")
            }
        }
        #expect(written >= 1, "\(file): no format could write the value")
    }

    @Test("the kept inputs are read from their folder (an unread folder would run no case above)")
    func folderIsRead() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
        #expect(!names.isEmpty && names.sorted() == Self.files, "\(names)")
    }

    @Test("a date in year -31686769 is written in old-style form that reads back")
    func negativeYearDate() throws {
        let d = PropertyList.date(Date(timeIntervalSinceReferenceDate: -1e15))
        #expect(try PropertyList(decoding: d.encoded(as: .openStep)) == d)
    }
}
