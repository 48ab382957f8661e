import Configuration
import PlatformIO
import PropertyList
import Foundation

/// The sync server's settings from three places, through swift-configuration:
/// the command line wins, then `UBIQUITY_*` environment variables, then the
/// settings file (`--config`, a property list such as
/// `/etc/opendefaults/ubiquity.plist`, which `defaults write` can edit).
///
/// File keys are the command line's option names (`port`, `max-connections`,
/// `allow-host` an array …); the environment's are the same in capitals with
/// `UBIQUITY_` before them (`UBIQUITY_MAX_CONNECTIONS`, `UBIQUITY_ALLOW_HOST=a,b`).
/// An unknown key, or a value of the wrong type, is an error naming the
/// file and key, or the variable.
///
/// ```swift
/// let settings = try ServerSettings(file: "/etc/opendefaults/ubiquity.plist")
/// let port = try settings.int("port") ?? 0
/// ```
struct ServerSettings {
    enum Kind { case string, integer, boolean, strings }

    /// Every setting: its file key (the option's name), its type.
    static let schema: [String: Kind] = [
        "host": .string, "port": .integer, "data": .string, "postgres": .string, "pool-size": .integer,
        "tls-cert": .string, "tls-key": .string, "insecure": .boolean, "allow-host": .strings,
        "max-connections": .integer, "body-timeout": .integer, "body-rate": .integer, "stop-timeout": .integer,
        "quota-stores": .integer, "quota-bytes": .integer,
        "log-format": .string, "log-level": .string, "metrics": .string,
    ]

    let reader: ConfigReader
    let file: String?
    let environment: [String: String]

    /// The settings file's key as swift-configuration's (`max-connections` → `ubiquity.maxConnections`).
    static func configKey(_ name: String) -> ConfigKey {
        var out = "", upper = false
        for c in name {
            if c == "-" { upper = true; continue }
            out.append(upper ? Character(c.uppercased()) : c)
            upper = false
        }
        return ConfigKey(["ubiquity", out])
    }

    /// The environment variable of a setting (`max-connections` → `UBIQUITY_MAX_CONNECTIONS`).
    static func variable(_ name: String) -> String {
        "UBIQUITY_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(file: String?, environment: [String: String] = ServerSettings.processEnvironment()) throws(Failure) {
        self.file = file
        self.environment = environment
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        if let file { values = try Self.read(file) }
        let secrets: SecretsSpecifier<String, String> = .specific([Self.variable("postgres")])
        reader = ConfigReader(providers: [
            EnvironmentVariablesProvider(environmentVariables: environment, secretsSpecifier: secrets),
            InMemoryProvider(name: file, values: values),
        ])
    }

    /// This process's environment (swift-configuration reads the same through ProcessInfo).
    static func processEnvironment() -> [String: String] {
        var out: [String: String] = [:]
        for name in schema.keys.map(variable) { if let v = Environment[name] { out[name] = v } }
        return out
    }

    /// The file's settings, checked against the schema.
    static func read(_ file: String) throws(Failure) -> [AbsoluteConfigKey: ConfigValue] {
        let bytes: [UInt8]
        do { bytes = try FileIO.read(file, limit: 1 << 20) } catch { throw Failure(description: "the settings file \(error)") }
        // It chooses the database, the data folder and the address: only root or this user may
        // have written it, or anything on the way to it (the managed-preferences rules).
        if let why = PathTrust.problem(with: file, owners: PathTrust.rootOrMe) {
            throw Failure(description: "the settings file \(file) is not trusted: \(why)")
        }
        guard case .dictionary(let top)? = try? PropertyList(decoding: bytes) else {
            throw Failure(description: "the settings file \(file) is not a property-list dictionary")
        }
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in top {
            guard let kind = schema[key.string] else {
                throw Failure(description: "\(file): unknown setting \"\(key.string)\" (known: \(schema.keys.sorted().joined(separator: ", ")))")
            }
            let secret = key.string == "postgres"
            let absolute = AbsoluteConfigKey(configKey(key.string))
            switch (kind, value) {
            case (.string, .string(let s)): values[absolute] = ConfigValue(.string(s), isSecret: secret)
            case (.integer, .integer(let n)) where n.int64Value != nil: values[absolute] = ConfigValue(.string(n.description), isSecret: false)
            case (.boolean, .boolean(let b)): values[absolute] = ConfigValue(.string(b ? "true" : "false"), isSecret: false)
            case (.strings, .array(let items)) where items.allSatisfy({ $0.stringValue != nil }):
                values[absolute] = ConfigValue(.stringArray(items.compactMap(\.stringValue)), isSecret: false)
            default:
                let expected = ["string": "a string", "integer": "an integer", "boolean": "a boolean", "strings": "an array of strings"]["\(kind)"]!
                throw Failure(description: "\(file): \(key.string): expected \(expected), found \(value.typeName)")
            }
        }
        return values
    }

    /// Where a value came from, for messages: the variable if it is set, else the file's key.
    func source(_ name: String) -> String {
        let variable = Self.variable(name)
        if environment[variable] != nil { return variable }
        return file.map { "\($0): \(name)" } ?? variable
    }

    func string(_ name: String) -> String? {
        reader.string(forKey: Self.configKey(name), isSecret: name == "postgres")
    }

    func int(_ name: String) throws(Failure) -> Int? {
        guard let text = string(name) else { return nil }
        guard let n = Int(text) else { throw Failure(description: "\(source(name)): expected an integer, found \"\(TerminalText.safe(text))\"") }
        return n
    }

    func bool(_ name: String) throws(Failure) -> Bool? {
        guard let text = string(name) else { return nil }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw Failure(description: "\(source(name)): expected true or false, found \"\(TerminalText.safe(text))\"")
        }
    }

    func strings(_ name: String) -> [String]? {
        reader.stringArray(forKey: Self.configKey(name))
    }
}
