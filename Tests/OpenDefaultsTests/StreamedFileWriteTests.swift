import Foundation
import Testing
import TestSupport
import PlatformIO

/// A file replaced from pieces written by a thread of their own
/// (`plutil -convert xml1` of a large binary file).
@Suite("Streamed file writes", .timeLimit(.minutes(2)))
struct StreamedFileWriteTests {
    func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Runs `body` with a folder holding `out.plist` ("old"), then removes the folder.
    func withOldFile(_ body: (_ dir: URL, _ path: String) throws -> Void) throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.plist").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try body(dir, path)
    }

    func leftovers(in dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
    }

    @Test("the pieces, in order, replace the file on commit; its mode stays; nothing is left beside it")
    func commit() throws {
        try withOldFile { dir, path in
            chmod(path, 0o640)
            let file = try StreamedFileWrite(path: path)
            var expected: [UInt8] = []
            var rng = SeededRandom(seed: 9)
            var reused = 0
            // Enough pieces to pass the sync interval and to reuse pieces: when the sixth is made,
            // at least one has been written (at most three wait and one is being written).
            for k in 0..<40 {
                var piece: [UInt8] = []
                if let written = file.reusablePiece() {
                    #expect(written.isEmpty && written.capacity >= 200_000)
                    piece = written
                    reused += 1
                }
                piece.append(contentsOf: (0..<(200_000 + k)).map { _ in UInt8.random(in: 0...255, using: &rng) })
                expected += piece
                file.append(piece)
            }
            #expect(reused > 0)
            // Until the commit the old file is there.
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("old".utf8))
            try file.commit()
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == expected)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == 0o640)
            #expect(try leftovers(in: dir).isEmpty)
            #expect(throws: FileError.self) { try file.commit() }
        }
    }

    @Test("abandoned, the file is left as it was and the temporary file is gone")
    func abandon() throws {
        try withOldFile { dir, path in
            let file = try StreamedFileWrite(path: path)
            file.append([UInt8](repeating: 0x41, count: 5 << 20))
            file.abandon()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("old".utf8))
            #expect(try leftovers(in: dir).isEmpty)
            // A file never committed nor abandoned is abandoned when it goes, also once its
            // thread is writing (proved: a piece it wrote comes back for reuse).
            do {
                let dropped = try StreamedFileWrite(path: path)
                dropped.append([1, 2, 3])
                let deadline = ContinuousClock.now + .seconds(30)
                while dropped.reusablePiece() == nil {
                    guard ContinuousClock.now < deadline else { Issue.record("the thread wrote nothing in 30 s"); break }
                    sched_yield()
                }
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("old".utf8))
            #expect(try leftovers(in: dir).isEmpty)
        }
    }

    @Test("a folder that is not writable, or a path that is a folder, is an error at once")
    func refusals() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(throws: FileError.self) { _ = try StreamedFileWrite(path: dir.path) }
        #expect(throws: FileError.self) { _ = try StreamedFileWrite(path: dir.appendingPathComponent("missing/out.plist").path) }
    }
}
