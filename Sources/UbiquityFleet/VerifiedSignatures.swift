#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
import Crypto
import SharedTables
import Synchronization
package import X509

/// Signatures this process proved lately, so that the machines one agent process manages
/// (`ubiquity agent --root … --root …`) check a declaration once, not once each: every machine of
/// a group receives the same signed bytes and, in one organisation, pins the same certificate.
///
/// An entry is the content of `signed` proven under `pinned` at some moment. It answers for the
/// same bytes under the same pinned certificate only while that proof would still hold: within
/// the signer's and the pinned certificate's validity, and at most ``lifetime`` after the proof
/// (which bounds what an intermediate certificate carried in the signature could change by
/// expiring meanwhile). Only successes are kept; a refusal is checked again each time.
///
/// ```swift
/// let key = VerifiedSignatures.key(signed, pinned: pinned, what: "declaration")
/// if let content = VerifiedSignatures.shared.content(for: key, now: now) { return content }
/// ```
package final class VerifiedSignatures: Sendable {
    package struct Key: Hashable {
        var signed: SHA256Digest
        var pinned: Certificate
        var what: String
    }

    struct Entry {
        var content: [UInt8]
        /// When the proof holds: the signer's and the pinned certificate's validity, cut to ``lifetime`` after the proof.
        var from: Date
        var until: Date
    }

    /// How long a proof answers at most.
    package static let lifetime: TimeInterval = 60
    /// How many proofs are kept (the oldest goes first): a machine follows at most 64 groups.
    package static let capacity = 64

    package static let shared = VerifiedSignatures()

    private let entries = Lock<(table: [Key: Entry], order: [Key])>(([:], []))

    /// An empty memory (the agent uses ``shared``).
    package init() {}

    package static func key(_ signed: [UInt8], pinned: Certificate, what: String) -> Key {
        Key(signed: SHA256.hash(data: signed), pinned: pinned, what: what)
    }

    /// The content proven for `key`, when a proof of it holds at `now`.
    package func content(for key: Key, now: Date) -> [UInt8]? {
        entries.withLock { e in
            guard let entry = e.table[key], entry.from <= now, now <= entry.until else { return nil }
            return entry.content
        }
    }

    /// Keeps the proof, made at `now`, that `key`'s signature holds from `from` until `until`
    /// (the signer's and the pinned certificate's validity).
    package func remember(_ content: [UInt8], for key: Key, from: Date, until: Date, now: Date) {
        let entry = Entry(content: content, from: max(from, now), until: min(until, now.addingTimeInterval(Self.lifetime)))
        guard entry.from <= entry.until else { return }
        entries.withLock { e in
            if e.table.updateValue(entry, forKey: key) == nil { e.order.append(key) }
            while e.order.count > Self.capacity { e.table[e.order.removeFirst()] = nil }
        }
    }
}
