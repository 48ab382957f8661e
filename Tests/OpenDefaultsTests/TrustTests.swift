import Foundation
@_spi(Engine) import OpenDefaults
import PlatformIO
import PropertyList
import Testing
import TestSupport

/// The core's side of issue 12: one gate for domain names, read errors that
/// are read errors, managed files trusted only on a root-owned path and
/// delivered when they change.
@Suite("Trust: names, read errors, managed files", .offThePool, .timeLimit(.minutes(10)))
struct TrustTests {
    @Test("every domain name from data passes one gate", arguments: [
        "", "/", "a/b", "..", ".", "../../tmp/ESCAPED", "com..example", "a\u{0}b", "tab\there", "del\u{7F}",
        String(repeating: "x", count: 193),
    ])
    func badDomainNames(name: String) throws {
        #expect(throws: StorageError.self) { try PreferencesLayout.validateDomainName(name) }
        #expect(Defaults(suiteName: name) == nil)
    }

    @Test("good domain names pass", arguments: ["com.example.app", "group.com.example.shared", "NSGlobalDomain", "Ünïcode.app", String(repeating: "x", count: 192)])
    func goodDomainNames(name: String) throws {
        try PreferencesLayout.validateDomainName(name)
    }

    @Test("a path-like domain name lives in memory only and its writes fail with the reason")
    func pathLikeDomainWritesNothing() throws {
        let sandbox = try Sandbox()
        let store = DomainStore(layout: sandbox.layout)
        let errors = ErrorRecorder()
        store.setErrorHandler { errors.add($0) }
        let escaped = sandbox.root.appendingPathComponent("ESCAPED").path
        let defaults = Defaults(domainName: "../\(sandbox.root.lastPathComponent)/ESCAPED", store: store, arguments: [])
        defaults.set("x", forKey: "k")
        #expect(defaults.string(forKey: "k") == "x")
        #expect(throws: StorageError.self) { try defaults.synchronizeOrThrow() }
        #expect(!FileManager.default.fileExists(atPath: escaped + ".plist"))
        #expect(errors.all.contains { $0.description.contains("not a valid domain name") })
    }

    @Test("a failed read is a read error, never end of file")
    func readErrors() throws {
        let sandbox = try Sandbox()
        let fd = open(sandbox.root.path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        #expect(throws: FileError.self) { _ = try FileIO.readAll(fd: fd, path: sandbox.root.path) }
        // A folder where a domain file should be: unreadable, left alone, writes fail.
        let path = sandbox.path("com.example.dir")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let store = DomainStore(layout: sandbox.layout)
        let errors = ErrorRecorder()
        store.setErrorHandler { errors.add($0) }
        let domain = store.domain("com.example.dir")
        domain.set(1, forKey: "k")
        #expect(throws: StorageError.self) { try domain.synchronize() }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(!errors.all.contains { if case .corrupt = $0.kind { true } else { false } })
    }

    /// The helper's `layout` answer in `environment` (a child process: this process's
    /// environment is shared by the suites running beside this one, and is never changed).
    func layout(_ domain: String, environment: [String: String]) throws -> (user: String, managed: [String], forced: String) {
        let r = try runProcess(helperPath, ["layout", domain], environment: environment)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let user = lines.first { $0.hasPrefix("user ") }.map { String($0.dropFirst(5)) } ?? ""
        let forced = lines.first { $0.hasPrefix("forced ") }.map { String($0.dropFirst(7)) } ?? ""
        return (user, lines.filter { $0.hasPrefix("managed ") }.map { String($0.dropFirst(8)) }, forced)
    }

    @Test("the per-user managed file is chosen by uid, not by $USER")
    func managedUserFromUID() throws {
        var env = ProcessInfo.processInfo.environment
        env["USER"] = "../../x"
        env["LOGNAME"] = "../../x"
        let answer = try layout("com.example.app", environment: env)
        #expect(!answer.user.isEmpty && !answer.user.contains("/"), "\(answer)")
        #expect(!answer.managed.isEmpty && !answer.managed.contains { $0.contains("..") }, "\(answer)")
    }

    @Test("the per-user managed file is the one of the process's uid, whatever $USER says", .requires(.root))
    func managedUserFileFoundByUID() throws {
        let sandbox = try Sandbox()
        let login = try #require(getpwuid(getuid())).pointee.pw_name.map { String(cString: $0) }
        let name = try #require(login)
        try writeManaged(sandbox, "users/\(name)/com.example.app.plist", ["ByUID": 1])
        try writeManaged(sandbox, "users/mallory/com.example.app.plist", ["ByUSER": 1])
        // In a child whose $USER and $LOGNAME name another user: the name is looked up by uid.
        var env = sandbox.environment
        env["USER"] = "mallory"
        env["LOGNAME"] = "mallory"
        let answer = try layout("com.example.app", environment: env)
        #expect(answer.user == name, "\(answer)")
        #expect(answer.forced == "ByUID", "\(answer)")
        // In this process, with the name looked up the same way: the domain and a one-key read agree.
        var here = PreferencesLayout.current
        here.managedDirectory = sandbox.layout.managedDirectory
        here.userDirectory = sandbox.userDirectory
        #expect(here.userName == name)
        #expect(DomainStore(layout: here).managedDomain("com.example.app").entries == ["ByUID": 1])
        #expect(DomainStore(layout: here).forcedValues("com.example.app") == ["ByUID": 1])
    }

    @Test("a one-time read looks up the login name only when a per-user managed folder exists")
    func perUserPathsOnlyWhenTheirFolderExists() throws {
        let sandbox = try Sandbox()
        var layout = PreferencesLayout.current  // the login name not given: looked up on use
        layout.managedDirectory = sandbox.layout.managedDirectory
        let managed = layout.managedDirectory
        try FileManager.default.createDirectory(atPath: managed, withIntermediateDirectories: true)
        let all = layout.managedPaths(for: "com.example.app")
        #expect(layout.managedPathsToRead(for: "com.example.app") == Array(all.prefix(2)))
        try FileManager.default.createDirectory(atPath: managed + "/profiles/users", withIntermediateDirectories: true)
        #expect(layout.managedPathsToRead(for: "com.example.app") == [all[0], all[1], all[3]])
        try FileManager.default.createDirectory(atPath: managed + "/users", withIntermediateDirectories: true)
        #expect(layout.managedPathsToRead(for: "com.example.app") == all)
        // A layout that names its user reads every file.
        #expect(sandbox.layout.managedPathsToRead(for: "com.example.app") == sandbox.layout.managedPaths(for: "com.example.app"))
    }

    @Test("a root-owned sticky folder on the way (as /tmp) is trusted; the same folder without the sticky bit is not", .requires(.root))
    func stickyFolderException() throws {
        let sandbox = try Sandbox()
        try writeManaged(sandbox, "com.example.app.plist", ["A": 1])
        #expect(chmod(sandbox.systemRoot, 0o1777) == 0)
        #expect(DomainStore(layout: sandbox.layout).managedDomain("com.example.app").entries == ["A": 1], "sticky 1777: trusted")
        #expect(chmod(sandbox.systemRoot, 0o0777) == 0)
        let store = DomainStore(layout: sandbox.layout)
        store.setErrorHandler { _ in }
        #expect(store.managedDomain("com.example.app").entries.isEmpty, "0777 without the sticky bit: not trusted")
    }

    func writeManaged(_ sandbox: Sandbox, _ relative: String, _ value: PropertyList) throws {
        let path = sandbox.layout.managedDirectory + "/" + relative
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let temporary = dir + "/.tmp-\(UUID().uuidString)"
        try value.data(as: .xml).write(to: URL(fileURLWithPath: temporary))
        chmod(temporary, 0o644)
        rename(temporary, path)
    }

    @Test("a managed file under a folder others can write is not trusted", .requires(.root))
    func writableAncestor() throws {
        let sandbox = try Sandbox()
        try writeManaged(sandbox, "com.example.app.plist", ["A": 1])
        #expect(sandbox.makeStore().managedDomain("com.example.app").entries == ["A": 1])
        // Another user could swap the folder below this one.
        chmod(sandbox.systemRoot, 0o777)
        let store = DomainStore(layout: sandbox.layout)
        let errors = ErrorRecorder()
        store.setErrorHandler { errors.add($0) }
        #expect(store.managedDomain("com.example.app").entries.isEmpty)
        #expect(errors.all.contains { $0.description.contains("writable by group or others") })
    }

    @Test("a managed folder that is a link planted by another user is not trusted", .requires(.root))
    func plantedManagedLink() throws {
        let sandbox = try Sandbox()
        let forged = sandbox.root.appendingPathComponent("forged").path
        try FileManager.default.createDirectory(atPath: forged, withIntermediateDirectories: true)
        try PropertyList.dictionary(["A": 666]).data(as: .xml).write(to: URL(fileURLWithPath: forged + "/com.example.app.plist"))
        #expect(chmod(forged + "/com.example.app.plist", 0o644) == 0)
        try #require(symlink(forged, sandbox.layout.managedDirectory) == 0, "symlink: \(String(cString: strerror(errno)))")
        // The control: the same link made by root is followed, and the value is forced.
        #expect(DomainStore(layout: sandbox.layout).managedDomain("com.example.app").entries == ["A": 666],
                "a root-owned link to a root-owned folder should be trusted; the test's setup is wrong")
        // Planted by another user (nobody), it is not.
        try #require(lchown(sandbox.layout.managedDirectory, 65534, 65534) == 0, "lchown: \(String(cString: strerror(errno)))")
        var st = stat()
        try #require(lstat(sandbox.layout.managedDirectory, &st) == 0 && st.st_uid == 65534 && (st.st_mode & S_IFMT) == S_IFLNK)
        let store = DomainStore(layout: sandbox.layout)
        let errors = ErrorRecorder()
        store.setErrorHandler { errors.add($0) }
        #expect(store.managedDomain("com.example.app").entries.isEmpty)
        #expect(!errors.all.isEmpty, "the refused link is not reported")
    }

    @Test("a forced value that changes eventually reaches every defaults object, and its removal too (latency: Benchmarks, ManagedChange)", .requires(.root))
    func managedChangesAreDelivered() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let first = Defaults(domainName: "com.example.app", store: store, arguments: [])
        first.set("user's", forKey: "Theme")
        let second = Defaults(domainName: "com.example.app", store: store, arguments: [])
        let recorder = ChangeRecorder(store)
        #expect(!second.objectIsForced(forKey: "Theme"))
        try writeManaged(sandbox, "com.example.app.plist", ["Theme": "admin's"])
        #expect(eventually(timeout: .seconds(10)) { second.string(forKey: "Theme") == "admin's" && first.string(forKey: "Theme") == "admin's" })
        #expect(second.objectIsForced(forKey: "Theme"))
        // Observers of the store hear it after the search lists do.
        #expect(eventually { recorder.all.contains { $0.changes["Theme"] != nil } })
        // And when the administrator lifts it, the user's value is back.
        try FileManager.default.removeItem(atPath: sandbox.layout.managedDirectory + "/com.example.app.plist")
        #expect(eventually(timeout: .seconds(10)) { second.string(forKey: "Theme") == "user's" })
        #expect(!second.objectIsForced(forKey: "Theme"))
    }
}
