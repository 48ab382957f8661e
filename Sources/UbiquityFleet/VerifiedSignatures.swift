#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
import Crypto
import SharedTables
import Synchronization
package import X509

/// Signatures proven lately for the machines one agent process manages (`ubiquity agent --root …
/// --root …`), so that they check a declaration once, not once each: every machine of a group
/// receives the same signed bytes and, in one organisation, pins the same certificate. An agent
/// of one machine keeps none.
///
/// An entry is the content of `signed` proven under `pinned` at some moment. It answers for the
/// same bytes under the same pinned certificate only while that proof would still hold: within
/// the signer's and the pinned certificate's validity, and at most ``lifetime`` after the proof
/// (which bounds what an intermediate certificate carried in the signature could change by
/// expiring meanwhile). Only successes are kept; a refusal is checked again each time. Entries
/// past their time are dropped at the next proof, and what is kept is bounded by ``capacity``
/// entries and ``maximumBytes`` of content (a declaration holds up to 1 MB).
///
/// ```swift
/// let proofs = VerifiedSignatures()   // one per agent process
/// let declaration = try await DeclarationSignature.verify(signed, pinned: pinned, proofs: proofs)
/// ```
package final class VerifiedSignatures: Sendable {
    package struct Key: Hashable, Sendable {
        /// The SHA-256 of the signed bytes.
        var signed: [UInt8]
        var pinned: Certificate
        var what: String
    }

    struct Entry {
        var content: [UInt8]
        /// When the proof holds: the signer's and the pinned certificate's validity, from the proof to ``lifetime`` after it.
        var from: Date
        var until: Date
    }

    /// The proofs, their order and their bytes, kept together.
    struct Table {
        var entries: [Key: Entry] = [:]
        /// The keys of `entries`, oldest proof first.
        var order: [Key] = []
        /// The content bytes of `entries` (kept, not summed: the bound is checked at each proof).
        var bytes = 0

        /// Keeps `entry` for `key` as the newest proof, after dropping `key`'s old one and every
        /// proof past its time at `now`; then drops the oldest beyond the bounds.
        mutating func insert(_ entry: Entry, for key: Key, now: Date) {
            var kept: [Key] = []
            for k in order {
                if k != key, let e = entries[k], e.until >= now { kept.append(k) } else { drop(k) }
            }
            order = kept
            entries[key] = entry
            bytes += entry.content.count
            order.append(key)
            while order.count > VerifiedSignatures.capacity || bytes > VerifiedSignatures.maximumBytes { drop(order.removeFirst()) }
        }

        private mutating func drop(_ key: Key) {
            if let gone = entries.removeValue(forKey: key) { bytes -= gone.content.count }
        }
    }

    /// How long a proof answers at most.
    package static let lifetime: TimeInterval = 60
    /// How many proofs are kept at most (the oldest goes first): a machine follows at most 64 groups.
    package static let capacity = 64
    /// How many bytes of content are kept at most.
    package static let maximumBytes = 16 << 20

    private let table = Lock(Table())

    /// No proofs yet.
    package init() {}

    package static func key(_ signed: [UInt8], pinned: Certificate, what: String) -> Key {
        Key(signed: Array(SHA256.hash(data: signed)), pinned: pinned, what: what)
    }

    /// The content proven for `key`, when a proof of it holds at `now`.
    package func content(for key: Key, now: Date) -> [UInt8]? {
        table.withLock { t in
            guard let entry = t.entries[key], entry.from <= now, now <= entry.until else { return nil }
            return entry.content
        }
    }

    /// Keeps the proof, made at `now`, that `key`'s signature holds from `from` until `until`
    /// (the signer's and the pinned certificate's validity); drops what no longer holds, then the
    /// oldest proofs beyond the bounds.
    package func remember(_ content: [UInt8], for key: Key, from: Date, until: Date, now: Date) {
        let entry = Entry(content: content, from: max(from, now), until: min(until, now.addingTimeInterval(Self.lifetime)))
        guard entry.from <= entry.until, content.count <= Self.maximumBytes else { return }
        table.withLock { $0.insert(entry, for: key, now: now) }
    }

    /// How many proofs are kept, and their bytes.
    package var count: (proofs: Int, bytes: Int) { table.withLock { ($0.entries.count, $0.bytes) } }
}
