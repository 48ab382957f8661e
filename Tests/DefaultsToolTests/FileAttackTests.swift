import Foundation
import PropertyList
import Testing
import TestSupport

/// Runs `tool` as user `nobody` (through util-linux `setpriv`): "another user" of issue 12.
func runAsNobody(_ sandbox: ToolSandbox, _ args: [String], tool: String = "defaults") throws -> ToolSandbox.Result {
    let r = try runProcess("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                ToolSandbox.products.appendingPathComponent(tool).path] + args,
                           environment: sandbox.environment)
    return .init(status: r.status, stdout: r.stdout, stderr: r.stderr)
}

let canSwitchUser = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

func mode(_ path: String) -> Int {
    var st = stat()
    return lstat(path, &st) == 0 ? Int(st.st_mode & 0o7777) : -1
}

/// The file-layer attacks of issue 12, each reproduced with the built tools
/// and real files (as root, with `nobody` as the other user).
@Suite("defaults and plutil: files that are not theirs to replace", .offThePool, .timeLimit(.minutes(10)))
struct FileAttackTests {
    @Test("a rewrite keeps the file's mode; a new domain file is 0600")
    func modesAreKept() throws {
        let s = try ToolSandbox()
        let secret = s.root.appendingPathComponent("secret.plist").path
        try PropertyList.dictionary(["k": 1]).data(as: .xml).write(to: URL(fileURLWithPath: secret))
        chmod(secret, 0o600)
        let r = try s.run(["-replace", "k", "-integer", "2", secret], tool: "plutil")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(mode(secret) == 0o600)
        chmod(secret, 0o640)
        #expect(try s.run(["-convert", "binary1", secret], tool: "plutil").status == 0)
        #expect(mode(secret) == 0o640)

        #expect(try s.defaults("write", "com.example.new", "k", "1").status == 0)
        #expect(mode(s.config.appendingPathComponent("com.example.new.plist").path) == 0o600)
        chmod(s.config.appendingPathComponent("com.example.new.plist").path, 0o644)
        #expect(try s.defaults("write", "com.example.new", "k", "2").status == 0)
        #expect(mode(s.config.appendingPathComponent("com.example.new.plist").path) == 0o644)

        let exported = s.root.appendingPathComponent("export.plist").path
        _ = FileManager.default.createFile(atPath: exported, contents: Data("x".utf8), attributes: [.posixPermissions: 0o600])
        #expect(try s.defaults("export", "com.example.new", exported).status == 0)
        #expect(mode(exported) == 0o600)
    }

    @Test("a link another user planted in a sticky folder is not followed", .requires(.otherUser))
    func plantedLinks() throws {
        let s = try ToolSandbox()
        let sticky = s.root.appendingPathComponent("sticky").path
        mkdir(sticky, 0o777)
        chmod(sticky, 0o1777)
        let victim = s.root.appendingPathComponent("victim.plist").path
        try Data("root's secret".utf8).write(to: URL(fileURLWithPath: victim))
        chmod(victim, 0o600)
        for name in ["out.plist", "x.plist"] {
            symlink(victim, sticky + "/" + name)
            lchown(sticky + "/" + name, 65534, 65534)
        }
        let input = s.root.appendingPathComponent("in.plist").path
        try PropertyList.dictionary(["a": 1]).data(as: .xml).write(to: URL(fileURLWithPath: input))
        let p = try s.run(["-convert", "xml1", "-o", sticky + "/out.plist", input], tool: "plutil")
        #expect(p.status != 0)
        #expect(p.stderr.contains("not followed"), "\(p.stderr)")
        #expect(try s.defaults("write", "com.example.d", "k", "1").status == 0)
        let e = try s.defaults("export", "com.example.d", sticky + "/x.plist")
        #expect(e.status != 0)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "root's secret")
        #expect(mode(victim) == 0o600)

        // A dangling link is no licence to create a file elsewhere.
        let elsewhere = s.root.appendingPathComponent("created-elsewhere.plist").path
        symlink(elsewhere, s.root.appendingPathComponent("dangling.plist").path)
        let d = try s.run(["-convert", "xml1", "-o", s.root.appendingPathComponent("dangling.plist").path, input], tool: "plutil")
        #expect(d.status != 0)
        #expect(!FileManager.default.fileExists(atPath: elsewhere))
    }

    @Test("root does not follow a link another user planted in a folder of their own", .requires(.otherUser))
    func plantedLinkInTheirFolder() throws {
        let s = try ToolSandbox()
        let theirs = s.root.appendingPathComponent("theirs").path
        mkdir(theirs, 0o755)
        chown(theirs, 65534, 65534)
        let victim = s.root.appendingPathComponent("victim.plist").path
        try Data("root's secret".utf8).write(to: URL(fileURLWithPath: victim))
        chmod(victim, 0o600)
        let link = theirs + "/out.plist"
        symlink(victim, link)
        lchown(link, 65534, 65534)
        let input = s.root.appendingPathComponent("in.plist").path
        try PropertyList.dictionary(["a": 1]).data(as: .xml).write(to: URL(fileURLWithPath: input))
        let p = try s.run(["-convert", "xml1", "-o", link, input], tool: "plutil")
        #expect(p.status != 0)
        #expect(p.stderr.contains("not followed"), "\(p.stderr)")
        let w = try s.defaults("write", link, "k", "1")
        #expect(w.status != 0, "\(w.stdout) \(w.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "root's secret")
        #expect(mode(victim) == 0o600)
        // A folder on the way that is their link: not followed either.
        let folderLink = theirs + "/config"
        symlink(s.root.path, folderLink)
        lchown(folderLink, 65534, 65534)
        let through = try s.run(["-convert", "xml1", "-o", folderLink + "/victim.plist", input], tool: "plutil")
        #expect(through.status != 0 && through.stderr.contains("not followed"), "\(through.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "root's secret")
        // A link root made in root's own folder is still followed.
        let mine = s.root.appendingPathComponent("mine.plist").path
        symlink(s.root.appendingPathComponent("target.plist").path, mine)
        try PropertyList.dictionary(["b": 1]).data(as: .xml).write(to: URL(fileURLWithPath: s.root.appendingPathComponent("target.plist").path))
        let ok = try s.run(["-convert", "binary1", "-o", mine, input], tool: "plutil")
        #expect(ok.status == 0, "\(ok.stderr)")
    }

    @Test("whole-domain writes and deletes never destroy a file they could not read", .requires(.otherUser))
    func unreadableDomains() throws {
        let s = try ToolSandbox()
        chown(s.root.path, 65534, 65534)
        chown(s.config.path, 65534, 65534)
        for name in ["com.unr", "com.unr2", "com.unr3"] {
            let path = s.config.appendingPathComponent(name + ".plist").path
            try PropertyList.dictionary(["kept": 1]).data(as: .binary).write(to: URL(fileURLWithPath: path))
            chown(path, 65534, 65534)
            chmod(path, 0)
        }
        let w = try runAsNobody(s, ["write", "com.unr", "{replaced=1;}"])
        #expect(w.status != 0)
        #expect(w.stderr.contains("com.unr.plist"), "\(w.stderr)")
        let d = try runAsNobody(s, ["delete", "com.unr2"])
        #expect(d.status != 0)
        let k = try runAsNobody(s, ["write", "com.unr3", "k", "1"])
        #expect(k.status != 0)
        for name in ["com.unr", "com.unr2", "com.unr3"] {
            let path = s.config.appendingPathComponent(name + ".plist").path
            #expect(mode(path) == 0, "\(name) is still there, untouched")
            #expect(try PropertyList(decoding: Data(contentsOf: URL(fileURLWithPath: path))) == ["kept": 1])
        }
    }

    @Test("a FIFO in place of a domain file is neither read nor replaced")
    func fifo() throws {
        let s = try ToolSandbox()
        let path = s.config.appendingPathComponent("com.fifo.plist").path
        #expect(mkfifo(path, 0o600) == 0)
        let r = try s.defaults("write", "com.fifo", "{a=1;}")
        #expect(r.status != 0)
        var st = stat()
        #expect(lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO)
        #expect(try s.defaults("write", "com.fifo", "a", "1").status != 0)
        #expect(try s.defaults("delete", "com.fifo").status != 0)
        #expect(lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO)
    }

    @Test("concurrent -array-add from 8 processes keeps every element")
    func concurrentArrayAdd() throws {
        let s = try ToolSandbox()
        let processes = 8, each = 50
        let group = DispatchGroup()
        let failures = Failures()
        for p in 0..<processes {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                for i in 0..<each {
                    let r = try? s.defaults("write", "com.race", "list", "-array-add", "p\(p)-\(i)")
                    if r?.status != 0 { failures.add("p\(p)-\(i): \(r?.stderr ?? "not run")") }
                    let d = try? s.defaults("write", "com.race", "dict", "-dict-add", "p\(p)-\(i)", "1")
                    if d?.status != 0 { failures.add("dict p\(p)-\(i)") }
                }
            }
        }
        group.wait()
        #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
        let value = try s.file("com.race")
        let list = value["list"]?.arrayValue ?? []
        #expect(list.count == processes * each)
        #expect(Set(list.compactMap(\.stringValue)).count == processes * each)
        #expect(value["dict"]?.dictionaryValue?.count == processes * each)
    }
}

final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
}
