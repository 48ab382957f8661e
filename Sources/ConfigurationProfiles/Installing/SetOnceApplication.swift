#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Engine) public import OpenDefaults
import PlatformIO
import PropertyList

/// Writes the set-once values of the installed profiles into this user's
/// own domains, as ordinary values the user may change afterwards.
///
/// An entry is applied when it never was for this user, profile and domain,
/// or when its `mcx_data_timestamp` is newer than the one last applied; an
/// `Often` entry at every run. What was applied is remembered in
/// `<user folder>/opendefaults/set-once.plist`. Run as the user (at session
/// start, by `profiles apply`; `profiles install` runs it for the user a
/// `User` profile is installed for). Removing a profile leaves its values.
///
/// ```swift
/// let applied = try SetOnceApplication(store: .shared, profiles: ProfileStore()).apply()
/// ```
public struct SetOnceApplication: Sendable {
    let store: DomainStore
    let profiles: ProfileStore

    public init(store: DomainStore = .shared, profiles: ProfileStore = ProfileStore()) {
        self.store = store
        self.profiles = profiles
    }

    /// Where what was applied is remembered.
    public var statePath: String { store.layout.userDirectory + "/opendefaults/set-once.plist" }

    /// Applies what is due; returns the entries applied, in order.
    @discardableResult
    public func apply() throws(ProfileError) -> [SetOnceEntry] {
        let entries = try profiles.setOnceEntries(for: store.layout.userName)
        guard !entries.isEmpty else { return [] }
        var state = try readState()
        var applied: [SetOnceEntry] = []
        for entry in entries {
            let last = state[LiteralString(entry.stateKey)]?.dictionaryValue
            let due: Bool
            if entry.often || last == nil {
                due = true
            } else if let stamp = entry.timestamp {
                due = last?["Timestamp"]?.dateValue.map { stamp > $0 } ?? true
            } else {
                due = false
            }
            guard due else { continue }
            let domain = store.domain(entry.domain, scope: .currentUser)
            domain.set(entry.values.mapValues { Optional($0) })
            do { try domain.synchronize() } catch {
                throw ProfileError(entry.domain, "the set-once values of \(entry.profile) cannot be written: \(error)")
            }
            var record: [LiteralString: PropertyList] = ["Applied": .date(Date())]
            if let stamp = entry.timestamp { record["Timestamp"] = .date(stamp) }
            state[LiteralString(entry.stateKey)] = .dictionary(record)
            applied.append(entry)
        }
        if !applied.isEmpty { try writeState(state) }
        return applied
    }

    func readState() throws(ProfileError) -> [LiteralString: PropertyList] {
        let bytes: [UInt8]
        do { bytes = try FileIO.read(statePath, limit: 16 << 20) } catch {
            if error.isNotFound { return [:] }
            throw ProfileError(statePath, "cannot be read: \(error.reason)")
        }
        // A damaged state file is not overwritten: the user's values are not re-applied blindly either.
        guard case .dictionary(let d)? = try? PropertyList(decoding: bytes) else {
            throw ProfileError(statePath, "is not a property-list dictionary; move it aside to apply set-once values again")
        }
        return d
    }

    func writeState(_ state: [LiteralString: PropertyList]) throws(ProfileError) {
        do {
            try FileIO.makeDirectories(FileIO.parentDirectory(of: statePath), mode: 0o700)
            try FileIO.write(try PropertyList.dictionary(state).encoded(as: .xml), to: statePath, mode: 0o600)
        } catch {
            throw ProfileError(statePath, "cannot be written: \(error)")
        }
    }
}
