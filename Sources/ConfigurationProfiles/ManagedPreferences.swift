public import PropertyList

/// The managed preferences a profile sets: forced values, values set once
/// into the user's own domain, and the payloads that are not preferences.
///
/// ```swift
/// let prefs = try ConfigurationProfile(bytes: bytes).preferences
/// prefs.forced["com.google.Chrome"]?["HomepageLocation"]   // .string("https://example.com")
/// ```
public struct ManagedPreferences: Sendable, Hashable {
    /// Values in force, by domain: `objectIsForced` is true for each key.
    public var forced: [String: [LiteralString: PropertyList]] = [:]
    /// Values written once into the user's own domain, by domain (Set-Once and Often).
    public var setOnce: [String: [LiteralString: PropertyList]] = [:]
    /// The newest `mcx_data_timestamp` of the Set-Once values of each domain, when given.
    public var setOnceTimestamps: [String: PropertyList] = [:]
    /// Domains whose values are set again at every session start (the older `Often`).
    public var often: Set<String> = []
    /// The `PayloadType` of each payload that is not a preference (Wi-Fi, certificates,
    /// restrictions, …), in file order: not applicable on this system.
    public var ignoredPayloads: [String] = []
    /// What the profile says that this reader did not understand, each with its
    /// place (`PayloadContent[0] (com.apple.ManagedClient.preference): …`): a
    /// payload that sets nothing, a key in a preferences payload that is not
    /// `Forced`, `Set-Once` or `Often` (`forced`), an entry without settings.
    /// Likely typos say what was probably meant. The profile is still valid;
    /// `profiles validate` warns, and `--strict` refuses it.
    public var notUnderstood: [String] = []

    public init() {}

    /// Whether the profile sets nothing here.
    public var isEmpty: Bool { forced.isEmpty && setOnce.isEmpty }

    /// Merges `values` into `table[domain]`, later keys winning (nested dictionaries replaced, not merged).
    static func merge(_ values: [LiteralString: PropertyList], into table: inout [String: [LiteralString: PropertyList]], domain: String) {
        table[domain, default: [:]].merge(values) { _, new in new }
    }
}
