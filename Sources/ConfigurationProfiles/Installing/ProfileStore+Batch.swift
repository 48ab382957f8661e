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
    package func apply(installing: [BatchProfile], removing: [String], now: Date = Date()) throws(ProfileError) -> ApplicationProblems {
        for item in installing where item.profile.scope != .system {
            throw ProfileError("PayloadScope", "\(item.profile.identifier) is for one user (User); a batch installs System profiles")
        }
        return try change(requireTrust: true) { (entries, index) throws(ProfileError) in
            let gone = Set(removing).union(installing.map(\.profile.identifier))
            entries.removeAll { $0.record.target == .system && gone.contains($0.record.identifier) }
            for item in installing {
                let record = InstalledProfile(item.profile, target: .system, sequence: index.nextSequence, installedAt: now, signature: item.signature)
                index.nextSequence += 1
                entries.append(StoredProfile(record: record, preferences: item.profile.preferences, bytes: item.bytes))
            }
            return { _, problems in ApplicationProblems(lines: problems) }
        }
    }

    /// What a batch could not write into applications' own files (as ``InstallResult/applicationProblems``).
    package struct ApplicationProblems: Sendable {
        package var lines: [String]
    }
}
