#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OpenDefaults
import PropertyList
import Spelling

/// A configuration profile (`.mobileconfig`) as administrators write them:
/// its identity and the managed preferences it sets.
///
/// Read from XML, binary, or CMS-signed (DER/BER/PEM) bytes. A profile is
/// all or nothing: any part of the wrong shape refuses the whole of it, with
/// a ``ProfileError`` that names the place.
///
/// ```swift
/// let profile = try ConfigurationProfile(bytes: Array(try Data(contentsOf: url)))
/// print(profile.identifier, profile.preferences.forced.keys.sorted())
/// ```
public struct ConfigurationProfile: Sendable, Hashable {
    /// `PayloadIdentifier`: the profile's name for installing and removing it.
    public var identifier: String
    /// `PayloadUUID`.
    public var uuid: String
    /// `PayloadDisplayName` (the identifier when absent).
    public var displayName: String
    /// `PayloadVersion` (1 when absent).
    public var version: Int64
    /// `PayloadScope`: system-wide (every user) or for one user.
    public var scope: Scope
    /// `PayloadRemovalDisallowed`.
    public var removalDisallowed: Bool
    /// Whether the bytes were a CMS signature around the profile.
    public var isSigned: Bool
    /// What it sets.
    public var preferences: ManagedPreferences

    /// `PayloadScope`.
    public enum Scope: String, Sendable, Hashable {
        case system = "System"
        case user = "User"
    }

    /// The largest profile read (a real one is a few kilobytes; the largest public ones under a megabyte).
    public static let maximumSize = 16 << 20

    /// The most preference domains one profile may set (real profiles set a few; the
    /// largest public ones tens).
    public static let maximumDomains = 1_000

    /// How far shared references may expand a binary profile (a small file must not become a large value).
    static let maximumExpansion = PropertyList.ExpansionLimit(objects: 1 << 20, bytes: 64 << 20)

    /// Reads a profile.
    public init(bytes: [UInt8]) throws(ProfileError) {
        guard bytes.count <= Self.maximumSize else {
            throw ProfileError("", "\(bytes.count) bytes: larger than the \(Self.maximumSize >> 20) MiB a profile may be")
        }
        var plistBytes = bytes
        isSigned = false
        if let content = try SignedProfile.content(of: bytes) {
            plistBytes = content
            isSigned = true
        }
        let top: PropertyList
        do {
            let (value, format) = try PropertyList.decode(plistBytes, options: .init(maximumExpansion: Self.maximumExpansion))
            guard format == .xml || format == .binary else {
                throw ProfileError("", "a \(format.displayName), not the XML or binary property list a profile is")
            }
            top = value
        } catch let error as ProfileError {
            throw error
        } catch {
            throw ProfileError("", "not a property list: \(error)")
        }
        guard case .dictionary(let profile) = top else { throw ProfileError("", "the profile is \(Self.kind(top)), not a dictionary") }
        guard case .string(let type)? = profile["PayloadType"], type == "Configuration" else {
            throw ProfileError("PayloadType", "expected the string \"Configuration\", found \(profile["PayloadType"].map(Self.kind) ?? "nothing")")
        }
        guard case .string(let identifier)? = profile["PayloadIdentifier"], !identifier.isEmpty else {
            throw ProfileError("PayloadIdentifier", "expected a non-empty string, found \(profile["PayloadIdentifier"].map(Self.kind) ?? "nothing")")
        }
        self.identifier = identifier
        uuid = profile["PayloadUUID"]?.stringValue ?? ""
        displayName = profile["PayloadDisplayName"]?.stringValue ?? identifier
        version = profile["PayloadVersion"]?.intValue.map(Int64.init) ?? 1
        switch profile["PayloadScope"] {
        case nil: scope = .system
        case .string(let s)? where Scope(rawValue: s) != nil: scope = Scope(rawValue: s)!
        case let other?: throw ProfileError("PayloadScope", "expected \"System\" or \"User\", found \(Self.describe(other))")
        }
        switch profile["PayloadRemovalDisallowed"] {
        case nil: removalDisallowed = false
        case .boolean(let b)?: removalDisallowed = b
        case let other?: throw ProfileError("PayloadRemovalDisallowed", "expected a boolean, found \(Self.kind(other))")
        }
        guard case .array(let payloads)? = profile["PayloadContent"] else {
            throw ProfileError("PayloadContent", "expected an array of payloads, found \(profile["PayloadContent"].map(Self.kind) ?? "nothing")")
        }
        var preferences = ManagedPreferences()
        for (index, payload) in payloads.enumerated() {
            try Self.read(payload, index: index, into: &preferences)
        }
        // Each domain a profile touches is a file the install rewrites: bounded, so that one
        // profile cannot make every later install or removal take minutes.
        let domains = Set(preferences.forced.keys).union(preferences.setOnce.keys).count
        guard domains <= Self.maximumDomains else {
            throw ProfileError("PayloadContent", "the profile sets preferences of \(domains) domains; a profile may set at most \(Self.maximumDomains)")
        }
        self.preferences = preferences
    }

    // MARK: Payloads

    static func read(_ payload: PropertyList, index: Int, into prefs: inout ManagedPreferences) throws(ProfileError) {
        let place = "PayloadContent[\(index)]"
        guard case .dictionary(let p) = payload else { throw ProfileError(place, "expected a payload dictionary, found \(kind(payload))") }
        guard case .string(let type)? = p["PayloadType"], !type.isEmpty else {
            throw ProfileError(place + " › PayloadType", "expected a string, found \(p["PayloadType"].map(kind) ?? "nothing")")
        }
        let here = "\(place) (\(type))"
        if type == PayloadKinds.managedClient {
            try readManagedClient(p, place: here, into: &prefs)
        } else if type == PayloadKinds.defaultsManaged {
            guard case .string(let domain)? = p["DefaultsDomainName"] else {
                throw ProfileError(here + " › DefaultsDomainName", "expected a string")
            }
            try checkDomain(domain, place: here)
            guard case .dictionary(let data)? = p["DefaultsData"] else { throw ProfileError(here + " › DefaultsData", "expected a dictionary") }
            ManagedPreferences.merge(data, into: &prefs.forced, domain: domain)
        } else if PayloadKinds.notPreferences.contains(type) {
            prefs.ignoredPayloads.append(type)
        } else {
            // A custom-settings payload: the type is the domain, every other key a forced value.
            try checkDomain(type, place: place)
            let settings = p.filter { !$0.key.string.hasPrefix("Payload") }
            if !settings.isEmpty { ManagedPreferences.merge(settings, into: &prefs.forced, domain: type) }
            let meant = ClosestWord.suggestion(for: type, among: PayloadKinds.known, prefixes: false)
            if settings.isEmpty {
                var note = "\(here): sets nothing (a payload of a preference domain's type sets the keys beside its Payload… keys; it has none)"
                if let meant { note += "; did you mean the payload type \(meant)?" }
                prefs.notUnderstood.append(note)
            } else if let meant {
                prefs.notUnderstood.append("\(here): read as forced values of the domain \(type); did you mean the payload type \(meant)?")
            }
        }
    }

    /// `com.apple.ManagedClient.preferences`: `PayloadContent` maps domains to
    /// `Forced` / `Set-Once` / `Often` arrays of `{mcx_preference_settings, mcx_data_timestamp}`.
    static func readManagedClient(_ p: [LiteralString: PropertyList], place: String, into prefs: inout ManagedPreferences) throws(ProfileError) {
        guard case .dictionary(let domains)? = p["PayloadContent"] else {
            throw ProfileError(place + " › PayloadContent", "expected a dictionary of preference domains, found \(p["PayloadContent"].map(kind) ?? "nothing")")
        }
        for (name, entry) in domains.sorted(by: { $0.key.string < $1.key.string }) {
            let domain = name.string
            let here = place + " › " + domain
            try checkDomain(domain, place: place)
            guard case .dictionary(let levels) = entry else { throw ProfileError(here, "expected a dictionary with Forced or Set-Once, found \(kind(entry))") }
            for key in levels.keys.map(\.string).sorted() where !Self.levels.contains(key) && key != "mcx_targets" {
                var note = "\(here) › \(key): not understood (a domain's keys are Forced, Set-Once and Often)"
                if let meant = ClosestWord.suggestion(for: key, among: Self.levels, ignoringCase: true) { note += "; did you mean \(meant)?" }
                prefs.notUnderstood.append(note)
            }
            for level in Self.levels {
                guard let value = levels[LiteralString(level)] else { continue }
                guard case .array(let elements) = value else { throw ProfileError(here + " › " + level, "expected an array, found \(kind(value))") }
                for (i, element) in elements.enumerated() {
                    let at = "\(here) › \(level)[\(i)]"
                    guard case .dictionary(let e) = element else { throw ProfileError(at, "expected a dictionary, found \(kind(element))") }
                    for key in e.keys.map(\.string).sorted() where !Self.entryKeys.contains(key) {
                        var note = "\(at) › \(key): not understood (an entry's keys are mcx_preference_settings and mcx_data_timestamp)"
                        if let meant = ClosestWord.suggestion(for: key, among: Self.entryKeys, ignoringCase: true) { note += "; did you mean \(meant)?" }
                        prefs.notUnderstood.append(note)
                    }
                    guard let settingsValue = e["mcx_preference_settings"] else {
                        prefs.notUnderstood.append("\(at): sets nothing (no mcx_preference_settings)")
                        continue
                    }
                    guard case .dictionary(let settings) = settingsValue else {
                        throw ProfileError(at + " › mcx_preference_settings", "expected a dictionary, found \(kind(settingsValue))")
                    }
                    if level == "Forced" {
                        ManagedPreferences.merge(settings, into: &prefs.forced, domain: domain)
                    } else {
                        ManagedPreferences.merge(settings, into: &prefs.setOnce, domain: domain)
                        if level == "Often" { prefs.often.insert(domain) }
                        if let stamp = e["mcx_data_timestamp"] {
                            guard case .date = stamp else { throw ProfileError(at + " › mcx_data_timestamp", "expected a date, found \(kind(stamp))") }
                            prefs.setOnceTimestamps[domain] = stamp
                        }
                    }
                }
            }
        }
    }

    /// The keys of a domain in a `com.apple.ManagedClient.preferences` payload (and
    /// `mcx_targets`, macOS's choice of user or computer, accepted and not applied).
    static let levels = ["Forced", "Set-Once", "Often"]
    /// The keys of an entry of a `Forced`, `Set-Once` or `Often` array (`mcx_union_policy_keys`:
    /// macOS's merge rule for arrays across profiles, accepted and not applied).
    static let entryKeys = ["mcx_preference_settings", "mcx_data_timestamp", "mcx_union_policy_keys"]

    /// A domain becomes a file name: refused when it could name a path.
    static func checkDomain(_ domain: String, place: String) throws(ProfileError) {
        do { try PreferencesLayout.validateDomainName(domain) } catch {
            throw ProfileError(place, "the preference domain \"\(domain)\" is \(error.reason)")
        }
    }

    static func kind(_ value: PropertyList) -> String { value.typeName }

    static func describe(_ value: PropertyList) -> String {
        if case .string(let s) = value { return "\"\(s)\"" }
        return kind(value)
    }
}
