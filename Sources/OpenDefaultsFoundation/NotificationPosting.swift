import PlatformIO
import SharedTables
import Foundation
import OpenDefaults
import Synchronization

enum NotificationPosting {
    /// The observation of each store whose defaults objects post: the process's own
    /// (``DomainStore/shared``) once posting starts, and any store an ``OpenUserDefaults`` wraps.
    private static let observations = WeakKeyedTable<DomainStore, Observation>()

    private final class Observation: Sendable {
        let token: ObservationToken
        init(_ store: DomainStore) { token = Defaults.observeAllInstances(over: store) { defaults in NotificationPosting.changed(defaults) } }
    }

    private struct Wrapper: @unchecked Sendable {
        weak var object: OpenUserDefaults?
    }

    /// What this side keeps for each defaults object, in the object's
    /// ``AttachmentSlot`` (the core knows nothing of notifications): the
    /// `OpenUserDefaults` over it, posted as the notification's `object` in
    /// place of the `Defaults` it wraps, and how many
    /// ``postingOnce(for:as:_:)`` edits of it are running.
    private final class Posting: Sendable {
        let wrapper = Lock(Wrapper())
        let editsRunning = Atomic<Int>(0)
    }

    private static func posting(of defaults: Defaults) -> Posting {
        defaults.attachment.value(as: Posting.self) { Posting() }
    }

    static func register(_ wrapper: OpenUserDefaults, for defaults: Defaults) {
        posting(of: defaults).wrapper.withLock { $0.object = wrapper }
        start(for: defaults.store)
    }

    /// Posts for every defaults object over `store` from now on (once per store; kept as long as the store lives).
    static func start(for store: DomainStore = .shared) {
        _ = observations.value(for: store) { Observation(store) }
    }

    /// Runs `body` (a persistent-domain edit) and then posts the notification
    /// exactly once with `wrapper` as its object, as corelibs' `UserDefaults`
    /// does for `setPersistentDomain` and `removePersistentDomain`: the
    /// changes `body` makes to `defaults`' own values post nothing of their
    /// own, and an edit of a domain outside the search list still posts.
    static func postingOnce(for defaults: Defaults, as wrapper: OpenUserDefaults, _ body: () -> Void) {
        let posting = posting(of: defaults)
        posting.editsRunning.add(1, ordering: .sequentiallyConsistent)
        body()
        posting.editsRunning.subtract(1, ordering: .sequentiallyConsistent)
        NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: wrapper)
    }

    /// A change: posted at once, on the thread that made it (as Foundation's
    /// `UserDefaults` posts: once per change, synchronously). A change made by a
    /// ``postingOnce(for:as:_:)`` edit is left to the edit's own post.
    fileprivate static func changed(_ defaults: Defaults) {
        let posting = posting(of: defaults)
        if posting.editsRunning.load(ordering: .sequentiallyConsistent) > 0 { return }
        post(defaults, posting)
    }

    private static func post(_ defaults: Defaults, _ posting: Posting) {
        let wrapper = posting.wrapper.withLock { $0.object }
        if let wrapper, wrapper.defaults === defaults {
            NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: wrapper)
        } else {
            NotificationCenter.default.post(name: Notification.Name("NSUserDefaultsDidChangeNotification"), object: defaults)
        }
    }
}
