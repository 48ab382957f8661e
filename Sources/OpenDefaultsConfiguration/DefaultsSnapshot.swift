import Configuration
import FoundationEssentials
import OpenDefaults
import PropertyList

/// The effective values of a search list at one moment.
struct DefaultsSnapshot: ConfigSnapshot {
    let providerName: String
    let view: ResolvedView
    let secrets: SecretsSpecifier<String, PropertyList>

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try Self.lookup(key, type: type, secrets: secrets) { view[$0] }
    }

    /// Looks `key` up through `read` (flat dotted key first, then a path
    /// into the first component's dictionary) and converts it to `type`.
    static func lookup(_ key: AbsoluteConfigKey, type: ConfigType, secrets: SecretsSpecifier<String, PropertyList>,
                       _ read: (String) -> PropertyList?) throws -> LookupResult {
        let components = key.components
        let flat = components.count == 1 ? components[0] : components.joined(separator: ".")
        var found = read(flat)
        if found == nil, components.count > 1, let root = read(components[0]) {
            found = root
            for component in components.dropFirst() {
                guard case .dictionary(let d)? = found else { found = nil; break }
                found = d[component]
            }
        }
        guard let found else { return LookupResult(encodedKey: flat, value: nil) }
        let content = try ValueConversion.content(found, as: type, key: flat)
        return LookupResult(encodedKey: flat, value: ConfigValue(content, isSecret: secrets.isSecret(key: flat, value: found)))
    }
}
