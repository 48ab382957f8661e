/// Why a fleet operation was refused: a kind to count by (metrics, reports) and the words.
package struct FleetError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Not a declaration at all, or one that lacks a field.
        case malformed
        /// The signature does not match the content: changed after it was signed.
        case tampered
        /// A valid signature by a key that does not chain to the pinned certificate.
        case untrusted
        /// A revision that is not newer than the one applied (an old declaration sent again).
        case replayed
        /// Signed for another group or another organisation.
        case misdirected
        /// A profile in it could not be installed or removed.
        case apply
    }

    package var kind: Kind
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { message }
}
