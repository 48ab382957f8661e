import SharedTables
import Synchronization

/// What the log line of the request being answered needs from deep inside
/// it: the authenticated account's id (never its token), set once admitted.
final class CurrentRequest: Sendable {
    /// The account of the request, once admitted.
    let account = Lock<String?>(nil)
}
