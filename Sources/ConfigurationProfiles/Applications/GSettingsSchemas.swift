import PlatformIO

/// The GSettings schemas installed on this system (`*.gschema.xml`, and the enums of `*.enums.xml`, in
/// `<root>/usr/share/glib-2.0/schemas`), read for what a profile needs: each
/// schema's dconf path and each key's type and allowed values.
///
/// A schema without a path (relocatable) cannot be managed from a profile:
/// it has no place in dconf until an application gives it one.
///
/// ```swift
/// let schemas = GSettingsSchemas(root: "")
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

    /// Reads every schema file of `<root>/usr/share/glib-2.0/schemas` (none when the folder is missing).
    package init(root: String) {
        folder = root + "/usr/share/glib-2.0/schemas"
        var enums: [String: [String]] = [:]
        var parsed: [(schema: Schema, extends: String?, pending: [(key: String, enumID: String, flags: Bool)])] = []
        for name in (FileIO.directoryEntries(folder) ?? []).sorted() where name.hasSuffix(".xml") {
            guard let bytes = try? FileIO.read(folder + "/" + name, limit: 8 << 20) else { continue }
            Self.read(bytes, enums: &enums, schemas: &parsed)
        }
        var byID: [String: (schema: Schema, extends: String?)] = [:]
        for var entry in parsed {
            for p in entry.pending {
                guard let nicks = enums[p.enumID] else { continue }
                entry.schema.keys[p.key]?.choices = nicks
            }
            byID[entry.schema.id] = (entry.schema, entry.extends)
        }
        // `extends`: a schema has its parent's keys too (its own winning).
        for (id, entry) in byID {
            var schema = entry.schema
            var parent = entry.extends
            var hops = 0
            while let p = parent, let base = byID[p], hops < 16 {
                for (k, v) in base.schema.keys where schema.keys[k] == nil { schema.keys[k] = v }
                parent = base.extends
                hops += 1
            }
            schemas[id] = schema
        }
    }

    /// The schema `id`, when installed.
    package func schema(_ id: String) -> Schema? { schemas[id] }

    private static func read(_ bytes: [UInt8], enums: inout [String: [String]],
                             schemas: inout [(schema: Schema, extends: String?, pending: [(key: String, enumID: String, flags: Bool)])]) {
        var currentEnum: String?
        var current: (schema: Schema, extends: String?, pending: [(key: String, enumID: String, flags: Bool)])?
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
                        current = (Schema(id: id, path: attributes["path"], keys: [:]), attributes["extends"], [])
                    }
                case "key":
                    guard current != nil, let keyName = attributes["name"] else { break }
                    var key: Key?
                    if let t = attributes["type"], let type = try? GVariantType(parsing: t) {
                        key = Key(name: keyName, type: type, choices: nil, range: nil, typeDescription: t)
                    } else if let e = attributes["enum"] {
                        key = Key(name: keyName, type: .basic("s"), choices: nil, range: nil, typeDescription: "s (enum \(e))")
                        current!.pending.append((keyName, e, false))
                    } else if let f = attributes["flags"] {
                        key = Key(name: keyName, type: .array(.basic("s")), choices: nil, range: nil, typeDescription: "as (flags \(f))")
                        current!.pending.append((keyName, f, true))
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
                if selfClosing, name == "schema", let c = current { schemas.append(c); current = nil }
            case .end(let name):
                switch name {
                case "enum", "flags": currentEnum = nil
                case "key": currentKey = nil
                case "schema":
                    if let c = current { schemas.append(c) }
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
