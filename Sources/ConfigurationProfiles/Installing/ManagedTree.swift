#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import PropertyList

/// What the installed profiles add up to: the forced values of each target
/// (the files the library reads), which profile forces each key, the
/// set-once values, and the conflicts. A pure function of the profiles.
///
/// Precedence: profiles apply in install order, so between two profiles of
/// one target forcing one key differently the later wins (and the pair is a
/// ``ProfileConflict``). Between targets nothing is merged here: the reader
/// puts a user's forced value over the system's (``PreferencesLayout/managedPaths(for:)``).
package struct ManagedTree: Sendable, Equatable {
    package var forced: [ProfileTarget: [String: [LiteralString: PropertyList]]] = [:]
    package var forcedBy: [ProfileTarget: [String: [LiteralString: String]]] = [:]
    package var setOnce: [ProfileTarget: [SetOnceEntry]] = [:]
    package var conflicts: [ProfileConflict] = []

    package init() {}

    /// Derives the tree from the installed profiles and what each sets.
    package static func derive(_ profiles: [(record: InstalledProfile, preferences: ManagedPreferences)]) -> ManagedTree {
        var tree = ManagedTree()
        // target → domain → key → (winner, earlier profiles with other values)
        var contested: [ProfileTarget: [String: [LiteralString: [String]]]] = [:]
        for (record, prefs) in profiles.sorted(by: { $0.record.sequence < $1.record.sequence }) {
            let target = record.target
            for (domain, values) in prefs.forced {
                for (key, value) in values {
                    if let previous = tree.forced[target]?[domain]?[key], previous != value,
                       let owner = tree.forcedBy[target]?[domain]?[key], owner != record.identifier {
                        var losers = contested[target, default: [:]][domain, default: [:]][key, default: []]
                        losers.removeAll { $0 == owner }
                        losers.append(owner)
                        contested[target, default: [:]][domain, default: [:]][key] = losers
                    }
                    tree.forced[target, default: [:]][domain, default: [:]][key] = value
                    tree.forcedBy[target, default: [:]][domain, default: [:]][key] = record.identifier
                }
            }
            for domain in prefs.setOnce.keys.sorted(by: LiteralOrder.precedes) {
                tree.setOnce[target, default: []].append(SetOnceEntry(
                    profile: record.identifier, domain: domain, timestamp: prefs.setOnceTimestamps[domain]?.dateValue,
                    often: prefs.often.contains(domain), values: prefs.setOnce[domain]!))
            }
        }
        for (target, domains) in contested {
            for (domain, keys) in domains {
                for (key, losers) in keys {
                    guard let winner = tree.forcedBy[target]?[domain]?[key] else { continue }
                    let overridden = losers.filter { $0 != winner }
                    if !overridden.isEmpty {
                        tree.conflicts.append(ProfileConflict(target: target, domain: domain, key: key.string, winner: winner, overridden: overridden))
                    }
                }
            }
        }
        tree.conflicts.sort { ($0.target, $0.domain, $0.key) < ($1.target, $1.domain, $1.key) }
        return tree
    }
}
