// What both benchmark executables need: a private preferences folder, the
// built helper programs, spawning one, and values never written before.
import Foundation
import OpenDefaults
import Synchronization

/// The folders ``Sandbox/folder(named:)`` made, removed when the process exits.
private let madeFolders = Mutex<[String]>([])

/// A private preferences folder for both implementations in this process.
public enum Sandbox {
    /// Makes `<tmp>/<prefix>-<pid>` and points `XDG_CONFIG_HOME` at it (Foundation and spawned tools
    /// use it). The folder is removed when the process exits.
    public static func folder(named prefix: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let first = madeFolders.withLock { made in
            made.append(dir)
            return made.count == 1
        }
        if first {
            atexit {
                for folder in madeFolders.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: folder) }
            }
        }
        setenv("XDG_CONFIG_HOME", dir, 1)
        return dir
    }

    /// A store over `folder` (the rest of the layout as this machine's).
    public static func store(in folder: String) -> DomainStore {
        var layout = PreferencesLayout.current
        layout.userDirectory = folder
        return DomainStore(layout: layout)
    }
}

/// The built helper programs sit beside this benchmark's executable.
public func program(_ name: String) -> String? {
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var url = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = url.appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        url.appendPathComponent("release")
        if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent(name).path) { return url.appendingPathComponent(name).path }
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
    }
    return nil
}

/// Starts a program and waits for it.
public func spawnAndWait(_ path: String, _ arguments: [String]) {
    var pid: pid_t = 0
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    defer { posix_spawn_file_actions_destroy(&actions) }
    guard posix_spawn(&pid, path, &actions, nil, argv, environ) == 0 else { return }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
}

public enum Counter {
    nonisolated(unsafe) static var value = Int(getpid()) * 1_000_000
    public static func next() -> Int { value += 1; return value }
}

