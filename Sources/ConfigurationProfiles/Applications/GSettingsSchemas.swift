import PlatformIO

/// The GSettings schemas installed on this system (`*.gschema.xml`, and the enums of `*.enums.xml`, in
/// `<root>/usr/share/glib-2.0/schemas`), read for what a profile needs: each
/// schema's dconf path and each key's type and allowed values.
///
/// A schema without a path (relocatable) cannot be managed from a profile:
/// it has no place in dconf until an application gives it one.
///
/// ```swift
/// let schemas = GSettingsSchemas(root: "", ids: ["org.gnome.desktop.background"])
/// schemas.schema("org.gnome.desktop.background")?.keys["picture-uri"]?.type   // .basic("s")
/// ```
package struct GSettingsSchemas: Sendable {
    /// One key of a schema.
    package struct Key: Sendable, Hashable {
        package var name: String
        package var type: GVariantType
        /// The values a string (or each string of a flags array) may take: an enum's or flags' nicks, or `<choices>`.
        package var choices: [String]?
        /// `<range min max>`, as numbers.
        package var range: ClosedRange<Double>?
        /// The type as a message names it: `s`, `enum org.gnome.desktop.GDesktopBackgroundStyle`.
        package var typeDescription: String
    }

    /// One schema.
    package struct Schema: Sendable, Hashable {
        package var id: String
        /// `/org/gnome/desktop/background/`, or nil when relocatable.
        package var path: String?
        package var keys: [String: Key]
    }

    /// The schemas by id.
    package private(set) var schemas: [String: Schema] = [:]
    /// The folder read.
    package let folder: String

    /// A schema as one file declares it: its enum and flags keys still name their type by id.
    private struct Declared {
        var schema: Schema
        var extends: String?
        /// key → the id of the enum or flags type whose nicks it takes.
        var nicksFrom: [String: String]
    }

    /// Reads the schemas `ids` (with the schemas they extend and the enums they use) from
    /// `<root>/usr/share/glib-2.0/schemas`; none when the folder is missing. Only the files
    /// that mention one of them, or declare enums, are parsed: most domains a profile sets
    /// are no schema, and an install should not parse every schema of the system for them.
    package init(root: String, ids: Set<String>) {
        folder = root + "/usr/share/glib-2.0/schemas"
        var files: [(bytes: [UInt8], parsed: Bool)] = []
        for name in (FileIO.directoryEntries(folder) ?? []).sorted() where name.hasSuffix(".xml") {
            if let bytes = try? FileIO.read(folder + "/" + name, limit: 8 << 20) { files.append((bytes, false)) }
        }
        var enums: [String: [String]] = [:]
        var byID: [String: Declared] = [:]
        var wanted = ids
        // Parse what mentions a wanted schema; then again for the parents they extend, if any is missing.
        for _ in 0..<16 where !wanted.isEmpty {
            for i in files.indices where !files[i].parsed {
                let bytes = files[i].bytes
                guard Self.isWorthParsing(bytes, for: wanted) else { continue }
                Self.read(bytes, enums: &enums, schemas: &byID)
                files[i].parsed = true
            }
            wanted = Set(byID.values.compactMap(\.extends)).subtracting(byID.keys)
        }
        for (id, declared) in byID where ids.contains(id) {
            var schema = declared.schema
            for (key, enumID) in declared.nicksFrom { schema.keys[key]?.choices = enums[enumID] }
            // `extends`: a schema has its parent's keys too (its own winning).
            var parent = declared.extends
            var hops = 0
            while let p = parent, let base = byID[p], hops < 16 {
                for (k, v) in base.schema.keys where schema.keys[k] == nil {
                    var key = v
                    if let enumID = base.nicksFrom[k] { key.choices = enums[enumID] }
                    schema.keys[k] = key
                }
                parent = base.extends
                hops += 1
            }
            schemas[id] = schema
        }
    }

    /// Whether a file declares enums or flags, or has an `id="…"` naming one of `ids`: one pass
    /// over its bytes, much cheaper than parsing it.
    private static func isWorthParsing(_ bytes: [UInt8], for ids: Set<String>) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            var i = 0
            while i + 4 < b.count {
                if b[i] == UInt8(ascii: "<"), b[i + 1] == UInt8(ascii: "e") || b[i + 1] == UInt8(ascii: "f") {
                    let word = String(decoding: b[(i + 1)..<min(b.count, i + 6)], as: UTF8.self)
                    if word.hasPrefix("enum") || word == "flags" { return true }
                } else if b[i] == UInt8(ascii: "i"), b[i + 1] == UInt8(ascii: "d"), b[i + 2] == UInt8(ascii: "="),
                          b[i + 3] == UInt8(ascii: "\"") || b[i + 3] == UInt8(ascii: "'") {
                    let quote = b[i + 3]
                    var end = i + 4
                    while end < b.count, b[end] != quote { end += 1 }
                    if ids.contains(String(decoding: b[(i + 4)..<end], as: UTF8.self)) { return true }
                    i = end
                }
                i += 1
            }
            return false
        }
    }

    /// The schema `id`, when installed.
    package func schema(_ id: String) -> Schema? { schemas[id] }

    private static func read(_ bytes: [UInt8], enums: inout [String: [String]], schemas: inout [String: Declared]) {
        var currentEnum: String?
        var current: Declared?
        var currentKey: String?
        for event in XMLEvents(bytes) {
            switch event {
            case .start(let name, let attributes, let selfClosing):
                switch name {
                case "enum", "flags":
                    if current == nil, let id = attributes["id"] { currentEnum = id; enums[id] = [] }
                case "value":
                    if let e = currentEnum, let nick = attributes["nick"] { enums[e]?.append(nick) }
                case "schema":
                    if let id = attributes["id"] {
                        current = Declared(schema: Schema(id: id, path: attributes["path"], keys: [:]), extends: attributes["extends"], nicksFrom: [:])
                    }
                case "key":
                    guard current != nil, let keyName = attributes["name"] else { break }
                    var key: Key?
                    if let t = attributes["type"], let type = try? GVariantType(parsing: t) {
                        key = Key(name: keyName, type: type, choices: nil, range: nil, typeDescription: t)
                    } else if let e = attributes["enum"] {
                        key = Key(name: keyName, type: .basic("s"), choices: nil, range: nil, typeDescription: "s (enum \(e))")
                        current!.nicksFrom[keyName] = e
                    } else if let f = attributes["flags"] {
                        key = Key(name: keyName, type: .array(.basic("s")), choices: nil, range: nil, typeDescription: "as (flags \(f))")
                        current!.nicksFrom[keyName] = f
                    }
                    if let key { current!.schema.keys[keyName] = key; currentKey = selfClosing ? nil : keyName }
                case "choice":
                    if let k = currentKey, let v = attributes["value"], current?.schema.keys[k] != nil {
                        current!.schema.keys[k]!.choices = (current!.schema.keys[k]!.choices ?? []) + [v]
                    }
                case "range":
                    if let k = currentKey, let lo = attributes["min"].flatMap(Self.number), let hi = attributes["max"].flatMap(Self.number), lo <= hi {
                        current?.schema.keys[k]?.range = lo...hi
                    }
                default: break
                }
                if selfClosing, name == "schema", let c = current { schemas[c.schema.id] = c; current = nil }
            case .end(let name):
                switch name {
                case "enum", "flags": currentEnum = nil
                case "key": currentKey = nil
                case "schema":
                    if let c = current { schemas[c.schema.id] = c }
                    current = nil
                default: break
                }
            }
        }
    }

    /// A range bound as the schema writes it (`0`, `-1.5`, `uint32 7`).
    private static func number(_ text: String) -> Double? {
        Double(text.split(separator: " ").last.map(String.init) ?? text)
    }
}
