import Synchronization

/// A journal that cannot be used or read.
struct JournalError: Error, Sendable {
    let reason: String
}
