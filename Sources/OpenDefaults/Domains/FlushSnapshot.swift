import PlatformIO
import PropertyList

/// What a flush takes from a domain's state when it starts (together, under
/// the state lock; sharing storage, so nothing is copied there): the entries
/// and the pending changes to write, the replacement and format, the file's
/// version as last seen, and how far the journal reaches now — every record
/// before `journalMark` is in what this flush writes.
struct FlushSnapshot {
    var base: [LiteralString: PropertyList]
    var pending: PendingChanges
    var replaced: UInt64?
    var format: PropertyListFormat
    var signature: FileSignature?
    /// This process's journal file (never replayed as an orphan).
    var journalPath: String?
    var journalMark: (end: Int, sequence: UInt64)?

    /// Nothing to write (and no edit or recovery asked for).
    var isEmpty: Bool { pending.isEmpty && replaced == nil }
    /// The last change this flush writes: what is pending up to it is written.
    var flushedUpTo: UInt64 { max(pending.lastSequence, replaced ?? 0) }
}
