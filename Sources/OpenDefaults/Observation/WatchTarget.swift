import Dispatch
import Synchronization

/// Something whose files the watcher watches: a persistent domain (its
/// file) or a managed domain (its policy files).
protocol WatchTarget: AnyObject, Sendable {
    /// The files to watch (their folders are watched).
    var watchedPaths: [String] { get }
    /// One of the files may have changed: re-read it (cheap when it did not).
    func watchedFileChanged()
}
