import Foundation

/// A value shared between threads and tasks of a test.
///
/// ```swift
/// let seen = Locked<[Int]>([])
/// seen.mutate { $0.append(1) }
/// ```
public final class Locked<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    private var isSet = false

    public init(_ value: T) { stored = value }

    /// Sets the value (and marks it set, for ``done``).
    public func set(_ value: T) { lock.withLock { stored = value; isSet = true } }

    /// Changes the value in place, and answers what `body` answers.
    @discardableResult
    public func mutate<R>(_ body: (inout T) -> R) -> R { lock.withLock { body(&stored) } }

    /// Whether ``set(_:)`` was called.
    public var done: Bool { lock.withLock { isSet } }

    public var value: T { lock.withLock { stored } }
}
