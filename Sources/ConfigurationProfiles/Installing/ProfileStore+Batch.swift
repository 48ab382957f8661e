#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

extension ProfileStore {
    /// A System profile to install in a ``apply(installing:removing:now:)`` batch.
    package struct BatchProfile: Sendable {
        package var profile: ConfigurationProfile
        package var bytes: [UInt8]
        package var signature: ProfileSignatureStatus

        package init(profile: ConfigurationProfile, bytes: [UInt8], signature: ProfileSignatureStatus) {
            self.profile = profile
            self.bytes = bytes
            self.signature = signature
        }
    }

    /// Installs `installing` for the system and removes the System profiles `removing` in one
    /// change: a reader, or a crash at any point, sees every profile before or every profile
    /// after, never some of them (the fleet agent applies a declaration so). An identifier in
    /// `removing` that is not installed is passed over; removal here ignores
    /// `PayloadRemovalDisallowed` (what the agent installed, it may take back).
    ///
    /// `owned`: the identifiers the caller installed before. When given, a System profile
    /// installed under an identifier not in it (by hand, with
    /// `profiles install`) is left alone, neither replaced by a profile of `installing` nor
    /// removed, and named in ``BatchResult/leftAlone``. The check is made under the store's
    /// lock, against the index the change starts from: a profile installed by hand a moment
    /// before is never replaced.
    package func apply(installing: [BatchProfile], removing: [String], owned: Set<String>? = nil,
                       now: Date = Date()) throws(ProfileError) -> BatchResult {
        for item in installing where item.profile.scope != .system {
            throw ProfileError("PayloadScope", "\(item.profile.identifier) is for one user (User); a batch installs System profiles")
        }
        return try change(requireTrust: true) { (entries, index) throws(ProfileError) in
            var leftAlone: [String] = []
            if let owned {
                let others = index.systemIdentifiers(except: owned)
                leftAlone = (installing.map(\.profile.identifier) + removing).filter { others.contains($0) }
            }
            let kept = Set(leftAlone)
            let gone = Set(removing).union(installing.map(\.profile.identifier)).subtracting(kept)
            entries.removeAll { $0.record.target == .system && gone.contains($0.record.identifier) }
            for item in installing where !kept.contains(item.profile.identifier) {
                let record = InstalledProfile(item.profile, target: .system, sequence: index.nextSequence, installedAt: now, signature: item.signature)
                index.nextSequence += 1
                entries.append(StoredProfile(record: record, preferences: item.profile.preferences, bytes: item.bytes))
            }
            return { _, problems in BatchResult(applicationProblems: problems, leftAlone: leftAlone) }
        }
    }

    /// What a batch did not do: what it could not write into applications' own files (as
    /// ``InstallResult/applicationProblems``), and the profiles it left alone.
    package struct BatchResult: Sendable {
        package var applicationProblems: [String]
        /// Identifiers of `installing` or `removing` installed by someone else (not in `owned`),
        /// in the order given; each is as it was before the batch.
        package var leftAlone: [String]
    }
}
