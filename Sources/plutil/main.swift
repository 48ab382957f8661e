// plutil: the macOS property-list utility, on the PropertyList module.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList
import PlatformIO

if let first = CommandLine.arguments.dropFirst().first, first == "--version" || first == "-version" {
    StandardStream.output.print("plutil (OpenDefaults) \(OpenDefaultsVersion.string)")
    Environment.exit(0)
}

// Large blocks are given back as soon as they are freed: a conversion lets
// its input go before it writes (GrowableMemory.mapLargeBlocks()).
GrowableMemory.mapLargeBlocks()

let invocation: Invocation
do {
    invocation = try Invocation(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    StandardStream.error.print("plutil: \(TerminalText.safe("\(error)"))")
    StandardStream.error.write(helpText + "\n")
    Environment.exit(1)
}

if invocation.verb == .help {
    StandardStream.output.write(helpText + "\n")
    Environment.exit(0)
}

func load(_ path: String, strict: Bool = false) throws(Failure) -> (PropertyList, PropertyListFormat) {
    try decode(try readInput(path), strict: strict)
}

func readInput(_ path: String) throws(Failure) -> [UInt8] {
    do { return try FileIO.read(path) } catch { throw Failure(message: "file does not exist or is not readable (\(error.reason))") }
}

func decode(_ bytes: [UInt8], strict: Bool = false) throws(Failure) -> (PropertyList, PropertyListFormat) {
    do {
        return try PropertyList.decode(bytes, options: .init(rejectsTruncatedStringsFiles: strict))
    } catch {
        throw Failure(message: error.description)
    }
}

extension Invocation.OutputFormat {
    /// The property-list format written; nil for `raw` (a value's text).
    var propertyListFormat: PropertyListFormat? {
        switch self {
        case .xml1: .xml
        case .binary1: .binary
        case .json: .json
        case .openstep: .openStep
        case .raw: nil
        }
    }
}

func encode(_ value: PropertyList, _ format: Invocation.OutputFormat) throws(Failure) -> [UInt8] {
    guard let target = format.propertyListFormat else { return Array(raw(value).utf8) }
    do {
        return try value.encoded(as: target, options: .init(prettyJSON: invocation.readableJSON))
    } catch {
        throw Failure(message: "invalid object in plist for destination format: \(error)")
    }
}

func formatOf(_ f: PropertyListFormat) -> Invocation.OutputFormat {
    switch f {
    case .xml: .xml1
    case .binary: .binary1
    case .json: .json
    case .openStep: .openstep
    }
}

/// `-extract … raw` and `-type`: the unencapsulated value.
func raw(_ v: PropertyList) -> String {
    switch v {
    case .string(let s): s
    case .integer(let n): n.description
    case .real(let d): "\(d)"
    case .boolean(let b): b ? "true" : "false"
    case .date(let d): PropertyList.iso8601String(for: d)
    case .data(let d): Base64Text.encode(d)
    case .uid(let u): "\(u)"
    case .array(let a): "\(a.count)"
    case .dictionary(let d): d.keys.sorted().map(\.string).joined(separator: "\n")
    }
}

func typeName(_ v: PropertyList) -> String {
    switch v.kind {
    case .boolean: "bool"
    case .integer: "integer"
    case .real: "float"
    case .string: "string"
    case .date: "date"
    case .data: "data"
    case .dictionary: "dictionary"
    case .array: "array"
    case .uid: "uid"
    }
}

func value(at keyPath: String, in root: PropertyList) throws(Failure) -> PropertyList {
    guard let v = root[keyPath: PropertyList.KeyPath(keyPath)] else {
        throw Failure(message: "no value at key path \(keyPath)")
    }
    if let expected = invocation.expect, typeName(v) != expected {
        let name = typeName(v)
        let article = "aeiou".contains(name.first ?? "x") ? "an" : "a"
        throw Failure(message: "value at key path \(keyPath) is \(article) \(name), expected \(expected)")
    }
    return v
}

func destination(for path: String) -> String {
    if let o = invocation.outputPath { return o }
    if let e = invocation.outputExtension {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let name = path[slash...]
        let base = name.lastIndex(of: ".").map { path[..<$0] } ?? Substring(path)
        return base + "." + e
    }
    return path
}

func write(_ bytes: [UInt8], to path: String) throws(Failure) {
    let failure: Failure? = bytes.withUnsafeBytes { b in
        do throws(Failure) { try write(bytes: b, to: path); return nil } catch { return error }
    }
    if let failure { throw failure }
}

func write(bytes: UnsafeRawBufferPointer, to path: String) throws(Failure) {
    do { try FileIO.write(bytes: bytes, to: path) } catch { throw Failure(message: "cannot write the result (\(error.reason))") }
}

func run(_ file: String) throws(Failure) {
    switch invocation.verb {
    case .help: break
    case .lint:
        _ = try load(file, strict: true)
        if !invocation.silent { StandardStream.output.print("\(TerminalText.safe(file)): OK") }
    case .print:
        let (v, _) = try load(file)
        StandardStream.output.write(HumanReadable.render(v))
    case .convert(let format):
        let input = try readInput(file)
        let out = destination(for: file == "-" && invocation.outputPath == nil ? "-" : file)
        if format == .xml1, PropertyListFormat.detect(input) == .binary {
            // Written from the file's objects as they are read, without
            // building the value: the same bytes and errors as decoding and
            // writing (PropertyList.xmlOutput(fromBinary:)). A large file's
            // XML goes to disk in pieces while the rest is made.
            if out != "-", input.count >= streamedInput, try convertStreamed(input, to: out) { return }
            let failure: Failure? = input.withUnsafeBytes { raw in
                do throws(Failure) {
                    let bytes: ByteOutput
                    do throws(PropertyListError) { bytes = try PropertyList.xmlOutput(fromBinary: raw) } catch { throw Failure(message: error.description) }
                    try bytes.withUnsafeBytes { (b) throws(Failure) in try write(bytes: b, to: out) }
                    return nil
                } catch { return error }
            }
            if let failure { throw failure }
            return
        }
        if format == .binary1, PropertyListFormat.detect(input) == .xml {
            // Written from the reader's compact nodes, without building the
            // value: the same bytes and errors as decoding and writing
            // (PropertyList.binaryOutput(fromXML:)).
            let bytes: ByteOutput
            do throws(PropertyListError) { bytes = try PropertyList.binaryOutput(fromXML: consume input) } catch { throw Failure(message: error.description) }
            try bytes.withUnsafeBytes { (b) throws(Failure) in try write(bytes: b, to: out) }
            return
        }
        let (v, _) = try decode(input)
        if let target = format.propertyListFormat {
            // Written from the writer's own buffer: a large file is not copied into an array first.
            let bytes: ByteOutput
            do { bytes = try v.encodedOutput(as: target, options: .init(prettyJSON: invocation.readableJSON)) } catch {
                throw Failure(message: "invalid object in plist for destination format: \(error)")
            }
            try bytes.withUnsafeBytes { (b) throws(Failure) in try write(bytes: b, to: out) }
        } else {
            try write(try encode(v, format), to: out)
        }
        keptUntilExit = v
    case .create(let format):
        try write(try encode(.dictionary([:]), format), to: file)
    case .extract(let keyPath, let format):
        let (root, _) = try load(file)
        let v = try value(at: keyPath, in: root)
        var bytes = try encode(v, format)
        if format == .raw, !invocation.noNewline { bytes.append(0x0A) }
        try write(bytes, to: invocation.outputPath ?? "-")
    case .type(let keyPath):
        let (root, _) = try load(file)
        let v = try value(at: keyPath, in: root)
        StandardStream.output.write(typeName(v) + (invocation.noNewline ? "" : "\n"))
    case .insert(let keyPath, let arg, let append):
        try modify(file) { (root) throws(PropertyList.KeyPathError) in
            try root.set(arg.value, at: PropertyList.KeyPath(keyPath), mode: append ? .append : .insert)
        }
    case .replace(let keyPath, let arg):
        try modify(file) { (root) throws(PropertyList.KeyPathError) in
            try root.set(arg.value, at: PropertyList.KeyPath(keyPath), mode: .replace)
        }
    case .remove(let keyPath):
        try modify(file) { (root) throws(PropertyList.KeyPathError) in try root.remove(at: PropertyList.KeyPath(keyPath)) }
    }
}

/// Loads, edits and writes back a file in the format it had.
func modify(_ file: String, _ edit: (inout PropertyList) throws(PropertyList.KeyPathError) -> Void) throws(Failure) {
    var (root, format) = try load(file)
    do { try edit(&root) } catch { throw Failure(message: error.description) }
    let out = destination(for: file)
    try write(try encode(root, formatOf(format)), to: out)
}

/// Binary files from this size on are converted to XML in pieces.
let streamedInput = 1 << 20

/// `-convert xml1` of a binary file, written in pieces of a megabyte by a
/// thread of their own (`StreamedFileWrite`) while the rest is made. False
/// when the walk refuses the file, or the output cannot be opened: the
/// caller then converts the usual way, whose errors are the tool's.
func convertStreamed(_ input: [UInt8], to out: String) throws(Failure) -> Bool {
    guard let file = try? StreamedFileWrite(path: out) else { return false }
    let walked: Bool = input.withUnsafeBytes { raw in
        do throws(PropertyListError) {
            try PropertyList.xmlPieces(fromBinary: raw, pieceSize: 1 << 20) { bytes in
                var piece = file.reusablePiece() ?? []
                piece.append(contentsOf: bytes)
                file.append(piece)
            }
            return true
        } catch {
            return false
        }
    }
    guard walked else {
        file.abandon()
        return false
    }
    do { try file.commit() } catch { throw Failure(message: "cannot write the result (\(error.reason))") }
    return true
}

/// The last file's value, never released: the process ends right after, and
/// taking apart a large tree value by value costs more than its reading did
/// (about a tenth of `plutil -convert` on the benchmarks' mixed file).
nonisolated(unsafe) var keptUntilExit: PropertyList?

var failed = false
for file in invocation.files {
    do {
        try run(file)
    } catch {
        failed = true
        StandardStream.error.print("\(TerminalText.safe(file)): \(TerminalText.safe(error.message, keepingNewlines: true))")
    }
}
Environment.exit(failed ? 1 : 0)
