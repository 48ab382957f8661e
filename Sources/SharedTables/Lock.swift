public import Synchronization

#if OPENDEFAULTS_TSAN
#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#elseif canImport(Darwin)
public import Darwin
#endif

/// The lock every piece of shared state in OpenDefaults sits behind.
///
/// Normally Swift's `Mutex`. ThreadSanitizer cannot see inside `Mutex` on
/// Linux (the Synchronization module is not instrumented, so every access
/// under it looks like a race), so a build for ThreadSanitizer
/// (`-Xswiftc -DOPENDEFAULTS_TSAN`) uses a pthread mutex with the same
/// `withLock` shape, which ThreadSanitizer intercepts. What it checks is that
/// every access to shared state happens under the lock.
public final class Lock<Value>: @unchecked Sendable {
    @usableFromInline var value: Value
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
#else
/// (`public`, as SharedTables' other inlined pieces, only so that inlined code
/// can use it; SharedTables is no product.)
///
/// The lock every piece of shared state in OpenDefaults sits behind. Swift's
/// `Mutex` (a pthread mutex in builds for ThreadSanitizer, which cannot see
/// inside `Mutex` on Linux; see `-DOPENDEFAULTS_TSAN` in `.ci/run`).
public typealias Lock<Value> = Mutex<Value>
#endif
