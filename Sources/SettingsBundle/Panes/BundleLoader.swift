#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PlatformIO
import PropertyList

/// Reads a bundle: walks the panes from the root, reads the string tables,
/// and collects the defaults and the problems.
struct BundleLoader {
    let bundlePath: String
    var panes: [String: Pane] = [:]
    var order: [String] = []
    var visited: Set<String> = []
    var defaults: [LiteralString: PropertyList] = [:]
    /// Every declaration with a default, per key, for conflict reports.
    var declarations: [String: [(file: String, index: Int, value: PropertyList)]] = [:]
    var declarationOrder: [String] = []
    var keysWithoutDefault: [String] = []
    var problems: [SettingsProblem] = []
    var rootVariants: [String] = []
    var localizations: [String: Localization] = [:]

    /// Files above this size are not read: a pane or a table is a few
    /// kilobytes, and a hostile bundle must not exhaust memory.
    static let maximumFileSize: Int64 = 16 << 20

    /// Reads a file of the bundle, refusing one that is not a regular file or is too large.
    static func readFile(_ path: String) throws(FileError) -> [UInt8] {
        if let signature = FileSignature(path: path) {
            guard signature.isRegularFile else { throw FileError(path: path, reason: "not a regular file") }
            guard signature.size <= maximumFileSize else {
                throw FileError(path: path, reason: "larger than \(maximumFileSize >> 20) MiB, not read")
            }
        }
        return try FileIO.read(path)
    }

    /// How deep child panes may nest (real bundles use a handful of levels;
    /// the walk is recursive, so hostile nesting must stop somewhere).
    static let maximumDepth = 64

    init(bundlePath: String) { self.bundlePath = bundlePath }

    mutating func load(root: String) throws(SettingsBundleError) {
        guard Self.isInsideBundle(root) else {
            throw SettingsBundleError(path: root, reason: "the root pane must be a path inside the bundle")
        }
        let rootPath = bundlePath + "/" + root
        let bytes: [UInt8]
        do { bytes = try Self.readFile(rootPath) } catch {
            throw SettingsBundleError(path: rootPath, reason: "cannot read the root pane: \(error.reason)")
        }
        let value: PropertyList
        do { value = try PropertyList(decoding: bytes) } catch {
            throw SettingsBundleError(path: rootPath, reason: "the root pane is not a property list: \(error)")
        }
        guard case .dictionary(let dictionary) = value, dictionary["PreferenceSpecifiers"] != nil else {
            throw SettingsBundleError(path: rootPath,
                reason: "the root pane must be a dictionary with PreferenceSpecifiers (found \(value.typeName))")
        }
        walk(root, stack: [], preloaded: dictionary)
        reportConflicts()
        loadLocalizations()
        findUnreferencedPlists()
    }

    // MARK: - Panes

    /// Reads one pane and, depth first, the child panes it references.
    mutating func walk(_ file: String, stack: [String], preloaded: [LiteralString: PropertyList]? = nil) {
        let parent = stack.last ?? file
        if stack.contains(file) {
            problems.append(SettingsProblem(.error, file: parent,
                "child pane cycle: \((stack + [file]).joined(separator: " -> "))"))
            return
        }
        guard visited.insert(file).inserted else { return }
        guard stack.count < Self.maximumDepth else {
            problems.append(SettingsProblem(.error, file: parent,
                "child panes nested deeper than \(Self.maximumDepth) levels; \(file) and below are not read"))
            return
        }
        let dictionary: [LiteralString: PropertyList]
        if let preloaded {
            dictionary = preloaded
        } else {
            guard let read = readPane(file, referencedFrom: parent) else { return }
            dictionary = read
        }
        let pane = Pane(file: file, dictionary: dictionary, problems: &problems)
        panes[file] = pane
        order.append(file)
        for (specifier, index) in zip(pane.specifiers, pane.specifierIndices) {
            SpecifierValidation.check(specifier, file: file, index: index, problems: &problems)
            record(specifier, file: file, index: index)
            if specifier.kind == .childPane {
                if let child = specifier.childPanePath {
                    if Self.isInsideBundle(child) {
                        walk(child, stack: stack + [file])
                    } else {
                        problems.append(SettingsProblem(.error, file: file, index: index,
                            "child pane File '\(specifier.file ?? "")' leaves the bundle; expected a path inside it"))
                    }
                }
            }
        }
    }

    /// Reads a child pane's dictionary, or records why it cannot be read.
    mutating func readPane(_ file: String, referencedFrom parent: String) -> [LiteralString: PropertyList]? {
        let path = bundlePath + "/" + file
        let bytes: [UInt8]
        do { bytes = try Self.readFile(path) } catch {
            let reason = error.isNotFound ? "missing child pane (no such file)" : "cannot read child pane: \(error.reason)"
            problems.append(SettingsProblem(.error, file: file, "\(reason), referenced from \(parent)"))
            return nil
        }
        let value: PropertyList
        do { value = try PropertyList(decoding: bytes) } catch {
            problems.append(SettingsProblem(.error, file: file, "malformed child pane: \(error)"))
            return nil
        }
        guard case .dictionary(let dictionary) = value else {
            problems.append(SettingsProblem(.error, file: file,
                "malformed child pane: the top-level object is \(value.typeName), not a dictionary"))
            return nil
        }
        guard let specifiers = dictionary["PreferenceSpecifiers"] else {
            problems.append(SettingsProblem(.error, file: file, "malformed child pane: no PreferenceSpecifiers"))
            return nil
        }
        guard case .array = specifiers else {
            problems.append(SettingsProblem(.error, file: file,
                "malformed child pane: PreferenceSpecifiers is \(specifiers.typeName), not an array"))
            return nil
        }
        return dictionary
    }

    /// Records a specifier's key and default.
    mutating func record(_ specifier: Specifier, file: String, index: Int) {
        guard let key = specifier.key else { return }
        if let value = specifier.defaultValue {
            defaults[key] = value
            if declarations[key] == nil { declarationOrder.append(key) }
            declarations[key, default: []].append((file, index, value))
        } else if !keysWithoutDefault.contains(key) {
            keysWithoutDefault.append(key)
        }
    }

    /// One key declared with different defaults: reported once, listing every declaration.
    mutating func reportConflicts() {
        for key in declarationOrder {
            let list = declarations[key]!
            guard list.count > 1, list.contains(where: { $0.value != list[0].value }) else { continue }
            let all = list.map { "\($0.file)[\($0.index)] \($0.value.messageText)" }.joined(separator: ", ")
            let last = list[list.count - 1]
            problems.append(SettingsProblem(.warning, file: last.file, index: last.index, key: key,
                "declared with different defaults: \(all); the last one is registered"))
        }
    }

    // MARK: - String tables

    mutating func loadLocalizations() {
        let entries = FileIO.directoryEntries(bundlePath) ?? []
        for folder in entries.sorted() where folder.hasSuffix(".lproj") {
            let language = String(folder.dropLast(6))
            var tables: [String: [LiteralString: String]] = [:]
            let files = FileIO.directoryEntries(bundlePath + "/" + folder) ?? []
            for name in files.sorted() where name.hasSuffix(".strings") {
                let relative = folder + "/" + name
                if let table = readTable(relative) { tables[String(name.dropLast(8))] = table }
            }
            localizations[language] = Localization(language: language, tables: tables)
        }
    }

    /// Reads one strings table strictly, so that a table CoreFoundation would
    /// silently truncate is reported; what could be read is still used.
    mutating func readTable(_ relative: String) -> [LiteralString: String]? {
        let path = bundlePath + "/" + relative
        let bytes: [UInt8]
        do { bytes = try Self.readFile(path) } catch {
            problems.append(SettingsProblem(.warning, file: relative, "cannot read the strings table: \(error.reason)"))
            return nil
        }
        let value: PropertyList
        do {
            value = try PropertyList(decoding: bytes, options: .init(rejectsTruncatedStringsFiles: true))
        } catch {
            problems.append(SettingsProblem(.warning, file: relative, "strings table does not parse: \(error)"))
            guard let lenient = try? PropertyList(decoding: bytes) else { return nil }
            value = lenient
        }
        guard case .dictionary(let entries) = value else {
            problems.append(SettingsProblem(.warning, file: relative,
                "strings table is \(value.typeName), expected a dictionary of strings"))
            return nil
        }
        var table: [LiteralString: String] = [:]
        for (key, text) in entries {
            if let s = text.stringValue { table[key] = s }
        }
        return table
    }

    // MARK: - Other files

    /// Root variants, and plists no pane references (noted, not read).
    mutating func findUnreferencedPlists() {
        let all = FileIO.subpaths(of: bundlePath).filter {
            $0.hasSuffix(".plist") && !$0.contains(".lproj/")
        }.sorted()
        for file in all {
            if !file.contains("/"), file.hasPrefix("Root") {
                rootVariants.append(file)
            } else if !visited.contains(file) {
                problems.append(SettingsProblem(.note, file: file, "not referenced by any pane reachable from the root"))
            }
        }
    }

    /// Whether a relative path stays inside the bundle (no `..`, not absolute).
    static func isInsideBundle(_ relative: String) -> Bool {
        !relative.hasPrefix("/") && !relative.split(separator: "/").contains("..")
    }
}
