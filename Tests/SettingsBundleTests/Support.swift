import Foundation
import TestSupport
@_spi(Engine) import OpenDefaults
import PropertyList
@testable import SettingsBundle

let repositoryRoot = Requirement.repositoryRoot

/// `../shared/corpora/settings`, when it exists beside the repository.
let settingsCorpus: URL? = {
    guard let url = Requirement.sharedDirectory?.appendingPathComponent("corpora/settings") else { return nil }
    return FileManager.default.fileExists(atPath: url.appendingPathComponent("bundles").path) ? url : nil
}()

/// The folder holding the built executables.
let productsDirectory = Products.directory

/// The corpus' typed JSON (`{"string": s}`, `{"int": "1"}`…) as a value.
func typedValue(_ json: PropertyList) -> PropertyList? {
    guard case .dictionary(let d) = json, d.count == 1, let (tag, v) = d.first else { return nil }
    switch tag {
    case "string": return v
    case "int": return v.stringValue.flatMap { Int64($0) }.map { .integer(.init($0)) }
        ?? v.stringValue.flatMap { UInt64($0) }.map { .integer(.init($0)) }
    case "real": return v.stringValue.flatMap { Double($0) }.map(PropertyList.real)
    case "bool": return v
    case "date": return v.stringValue.flatMap { PropertyList.date(from: $0) }.map(PropertyList.date)
    case "data": return v.stringValue.flatMap { Data(base64Encoded: $0) }.map(PropertyList.data)
    case "array": return v.arrayValue.map { .array($0.compactMap(typedValue)) }
    case "dict": return v.dictionaryValue.map { .dictionary($0.compactMapValues(typedValue)) }
    default: return nil
    }
}

/// A temporary directory removed when the value goes away.
final class TemporaryDirectory {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `value` as an XML plist at `relative`, creating folders.
    func write(_ relative: String, _ value: PropertyList) throws {
        try write(relative, bytes: value.encoded(as: .xml))
    }
    func write(_ relative: String, bytes: [UInt8]) throws {
        let url = URL(fileURLWithPath: path).appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }
}

extension PreferencesLayout {
    /// A layout whose every folder lies inside `dir` (the Settings app's test suites).
    static func sandboxed(in dir: String) -> PreferencesLayout {
        PreferencesLayout(
            userDirectory: dir + "/config", systemDirectory: dir + "/sys",
            managedDirectory: dir + "/managed", hostIdentifier: "host", userName: "tester")
    }
}

/// Runs a Python script of the repository with `arguments`; its status and
/// its standard output, then its standard error.
func runPythonScript(_ relativePath: String, _ arguments: [String]) throws -> (status: Int32, text: String) {
    let r = try runProcess("/usr/bin/env", ["python3", repositoryRoot.appendingPathComponent(relativePath).path] + arguments)
    return (r.status, r.stdout + r.stderr)
}
