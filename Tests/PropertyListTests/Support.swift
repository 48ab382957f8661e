import Foundation
import Testing
import TestSupport
@testable import PropertyList

/// The repository's root, from this file's path.
let repositoryRoot = Requirement.repositoryRoot

/// `../shared` beside the repository, when it exists.
let sharedDirectory = Requirement.sharedDirectory

/// The folder that holds the built executables (beside the test bundle).
let productsDirectory = Products.directory

func utf8(_ s: String) -> [UInt8] { Array(s.utf8) }

/// Every file of `../shared/corpora/plist/files`, its name and bytes (for tests
/// that require `.shared`; folders and unreadable entries are left out).
func plistCorpusFiles() -> [(name: String, bytes: [UInt8])] {
    let files = sharedDirectory!.appendingPathComponent("corpora/plist/files")
    let e = FileManager.default.enumerator(at: files, includingPropertiesForKeys: nil)!
    var found: [(name: String, bytes: [UInt8])] = []
    for case let url as URL in e {
        guard let data = try? Data(contentsOf: url) else { continue }
        found.append((url.lastPathComponent, [UInt8](data)))
    }
    return found
}

func decode(_ s: String, _ format: PropertyListFormat? = nil) throws(PropertyListError) -> PropertyList {
    try PropertyList(decoding: utf8(s), format: format)
}

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutData: Data
}

/// Runs a program to completion, feeding `input` on standard input.
func run(_ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String]? = nil, in directory: URL? = nil) throws -> ProcessResult {
    let r = try runProcess(executable, arguments, environment: environment, input: input, in: directory)
    return ProcessResult(status: r.status, stdout: r.stdout, stderr: r.stderr, stdoutData: r.stdoutData)
}

/// A fresh temporary directory, removed by the caller with `cleanup`.
func temporaryDirectory() throws -> URL {
    try ScratchFolders.make("opendefaults-tests")
}

/// Random property lists for round trips. `kinds` limits the leaf kinds
/// (JSON has no dates or data; old-style has no UIDs).
struct RandomValues {
    var rng: SeededRandom
    var leafKinds: [PropertyList.Kind]
    /// The characters strings are made of; XML 1.0 readers other than Apple's refuse control characters.
    var alphabet = Array("abcXYZ019 _-.:/\"'\\\n\t<>&;=(){}é€😀中\u{1}//*")

    mutating func string() -> String {
        let n = Int.random(in: 0...12, using: &rng)
        return String((0..<n).map { _ in alphabet.randomElement(using: &rng)! })
    }

    mutating func leaf() -> PropertyList {
        switch leafKinds.randomElement(using: &rng)! {
        case .string: return .string(string())
        case .integer:
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: return PropertyList(Int64.random(in: -300...300, using: &rng))
            case 1: return PropertyList(Int64.random(in: .min ... .max, using: &rng))
            case 2: return PropertyList(UInt64.random(in: UInt64(Int64.max)...UInt64.max, using: &rng))
            default: return PropertyList([Int64.min, Int64.max, 0, -1, 255, 256, 65535, 65536, 4294967295][Int.random(in: 0..<9, using: &rng)])
            }
        case .real:
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return .real(Double.random(in: -1e6...1e6, using: &rng))
            case 1: return .real(Double(bitPattern: UInt64.random(in: 0...0x7FEF_FFFF_FFFF_FFFF, using: &rng)) * (Bool.random(using: &rng) ? 1 : -1))
            default: return .real([0.1, 1, -0.5, 1e300, .leastNonzeroMagnitude, 32.5, 1e16][Int.random(in: 0..<7, using: &rng)])
            }
        case .boolean: return .boolean(Bool.random(using: &rng))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(Int64.random(in: -60_000_000_000...60_000_000_000, using: &rng))))
        case .data: return .data(Data((0..<Int.random(in: 0...80, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case .uid: return .uid(UInt64.random(in: 0...UInt64(UInt32.max), using: &rng))
        case .array, .dictionary: return .string(string())
        }
    }

    mutating func value(depth: Int = 0) -> PropertyList {
        let roll = Int.random(in: 0..<10, using: &rng)
        if depth < 4, roll < 2 {
            return .array((0..<Int.random(in: 0...6, using: &rng)).map { _ in value(depth: depth + 1) })
        }
        if depth < 4, roll < 4 {
            var d: [LiteralString: PropertyList] = [:]
            for _ in 0..<Int.random(in: 0...6, using: &rng) { d[string()] = value(depth: depth + 1) }
            return .dictionary(d)
        }
        return leaf()
    }

    /// A dictionary at the top, as every format but JSON and binary requires of real files.
    mutating func document() -> PropertyList {
        var d: [LiteralString: PropertyList] = [:]
        for _ in 0..<Int.random(in: 0...8, using: &rng) { d[string()] = value(depth: 1) }
        return .dictionary(d)
    }
}

/// python3 on the PATH, if any.
let pythonPath = Requirement.pythonPath
