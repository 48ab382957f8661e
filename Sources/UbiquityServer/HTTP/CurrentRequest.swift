import PlatformIO
import SharedTables
import Synchronization

/// What the log line of the request being answered needs from deep inside
/// it: the authenticated account's id (never its token), set once admitted.
enum CurrentRequest {
    final class Box: Sendable {
        let account = Lock<String?>(nil)
    }

    @TaskLocal static var box: Box?

    /// The account of the request this task answers.
    static var account: String? {
        get { box?.account.withLock { $0 } }
        set { box?.account.withLock { $0 = newValue } }
    }
}
