import Foundation
import Testing
import PlatformIO

/// `FileIO.subpaths(of:)`: what the Settings bundle reader walks.
@Suite(.timeLimit(.minutes(10))) struct SubpathsTests {
    @Test func listsEverythingBelowAndNeverFollowsALink() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("subpaths-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/a/b", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/top.plist", contents: Data())
        _ = FileManager.default.createFile(atPath: root + "/a/b/deep.plist", contents: Data())
        // A link back up (a cycle if followed) and a link out of the tree.
        try FileManager.default.createSymbolicLink(atPath: root + "/a/loop", withDestinationPath: root)
        try FileManager.default.createSymbolicLink(atPath: root + "/etc", withDestinationPath: "/etc")
        #expect(Set(FileIO.subpaths(of: root)) == ["top.plist", "a", "a/b", "a/b/deep.plist", "a/loop", "etc"])
        #expect(FileIO.subpaths(of: root + "/missing").isEmpty)
        #expect(Set(FileIO.subpaths(of: root, maximumDepth: 0)) == ["top.plist", "a", "etc"])
    }
}
