import Foundation
import TestSupport
import Testing
@_spi(Engine) @testable import OpenDefaults
import PropertyList

let repositoryRoot = Requirement.repositoryRoot

/// The folder that holds the built executables (beside the test bundle).
let productsDirectory = Products.directory

let helperPath = productsDirectory.appendingPathComponent("defaults-test-helper").path

/// A throw-away home for preferences: a user folder and a system root.
final class Sandbox {
    let root: URL
    var userDirectory: String { root.appendingPathComponent("config").path }
    var systemRoot: String { root.appendingPathComponent("system").path }

    init() throws {
        root = try ScratchFolders.make("opendefaults")
        try FileManager.default.createDirectory(atPath: root.appendingPathComponent("config").path, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root.appendingPathComponent("system/etc").path, withIntermediateDirectories: true)
        try Data("0123456789abcdef0123456789abcdef\n".utf8).write(to: root.appendingPathComponent("system/etc/machine-id"))
    }

    deinit { ScratchFolders.remove(root) }

    var layout: PreferencesLayout {
        PreferencesLayout(
            userDirectory: userDirectory, systemDirectory: systemRoot + "/usr/local/etc",
            managedDirectory: systemRoot + "/etc/managed-preferences", hostIdentifier: "0123456789abcdef0123456789abcdef",
            userName: "tester")
    }

    /// The environment a helper process needs to use this sandbox.
    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = userDirectory
        env["OPENDEFAULTS_SYSTEM_ROOT"] = systemRoot
        env["USER"] = "tester"
        return env
    }

    func makeStore() -> DomainStore {
        let store = DomainStore(layout: layout)
        store.setErrorHandler { _ in }
        return store
    }

    func path(_ domain: String, scope: PreferenceScope = .currentUser) -> String { layout.path(for: domain, scope: scope) }

    func fileValue(_ domain: String) throws -> PropertyList {
        try PropertyList(decoding: Data(contentsOf: URL(fileURLWithPath: path(domain))))
    }
}

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

@discardableResult
/// Starts `defaults-test-helper` with `arguments` in `sandbox`'s environment,
/// its standard output piped back: read the child's lines from `output`.
func startHelper(_ arguments: [String], in sandbox: Sandbox) throws -> (process: Process, output: FileHandle) {
    let p = try startProcess(helperPath, arguments, environment: sandbox.environment, output: .pipe, errors: .inherited)
    return (p.process, p.output!)
}

func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
    let r = try runProcess(executable, arguments, environment: environment)
    return ProcessResult(status: r.status, stdout: r.stdout, stderr: r.stderr)
}

/// Collects change events from a store.
final class ChangeRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var changes: [DomainChange] = []
    var token: ObservationToken?

    init(_ store: DomainStore) {
        token = store.observe { [weak self] change in
            guard let self else { return }
            self.lock.lock()
            self.changes.append(change)
            self.lock.unlock()
        }
    }

    var all: [DomainChange] {
        lock.lock()
        defer { lock.unlock() }
        return changes
    }
}
