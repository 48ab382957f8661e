#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OpenDefaults
import PlatformIO
package import PropertyList
import UbiquityProtocol

/// Where a machine keeps its enrolment and what it applied: `<root>/var/lib/opendefaults/agent`,
/// a folder root alone may enter (0700), files root alone may read (0600). A machine is its
/// file tree: the process's system root (`OPENDEFAULTS_SYSTEM_ROOT`, or `/`) by default, or
/// another tree (a container's) that one agent process manages beside others.
package struct AgentFiles: Sendable, Hashable {
    /// The machine's root ("" for `/`), without a trailing `/`.
    package let root: String

    /// The files of the machine whose tree is at `root` ("" or "/" for this one's `/`).
    package init(root: String) {
        self.root = root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    /// The files of the machine this process runs on (its system root).
    package init() { self.init(root: PreferencesLayout.systemRoot) }

    package var folder: String { root + "/var/lib/opendefaults/agent" }
    package var credentialPath: String { folder + "/credential.plist" }
    package var statePath: String { folder + "/state.plist" }
    /// The machine's managed-preferences folder, where its profiles are installed.
    package var managedDirectory: String { root + PreferencesLayout.managedFolder }

    /// The machine's id: `<root>/etc/machine-id` (systemd's), the first line.
    package func machineID() throws(FleetError) -> String {
        let path = root + "/etc/machine-id"
        let bytes: [UInt8]
        do { bytes = try FileIO.read(path, limit: 4096) } catch {
            throw FleetError(.malformed, "cannot read the machine id: \(error)")
        }
        let id = String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
        guard !id.isEmpty, id.utf8.count <= 64, id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw FleetError(.malformed, "\(path) does not hold a machine id (hexadecimal)")
        }
        return id
    }

    /// Reads a property list written by ``write(_:to:)``; nil when there is none.
    package func read(_ path: String) throws(FleetError) -> [LiteralString: PropertyList]? {
        guard FileStatus.exists(path) else { return nil }
        if let problem = PathTrust.problem(with: path, owners: PathTrust.rootOrMe) {
            throw FleetError(.untrusted, "\(path) is not trusted: \(problem)")
        }
        let bytes: [UInt8]
        do { bytes = try FileIO.read(path, limit: 64 << 20) } catch { throw FleetError(.malformed, "\(error)") }
        guard case .dictionary(let d)? = try? PropertyList(decoding: bytes, format: .binary) else {
            throw FleetError(.malformed, "\(path) is not the agent's property list; it was left as it is")
        }
        return d
    }

    /// Writes `value` whole (a new file renamed over the old), readable by its owner alone.
    package func write(_ value: PropertyList, to path: String) throws(FleetError) {
        do {
            try FileIO.makeDirectories(folder, mode: 0o700)
            try FileIO.write(value.encoded(as: .binary), to: path, mode: 0o600)
        } catch {
            throw FleetError(.apply, "cannot write \(path): \(error)")
        }
    }
}
