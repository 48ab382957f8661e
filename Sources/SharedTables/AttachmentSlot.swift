public import Synchronization

/// Room on an object of a lower layer for one object of a layer above it,
/// made on first use and kept as long as the owner lives: the Foundation
/// edge's notification window on each `Defaults`, which the core neither
/// names nor reads.
///
/// Reading a filled slot costs one atomic load (a per-change path can use
/// it where a table keyed by the owner would cost a lock and a weak load).
/// The slot belongs to one layer: every caller asks for the same type
/// (checked in debug builds).
///
/// ```swift
/// let window = defaults.attachment.value(as: Window.self) { Window() }
/// ```
///
/// `public` only so that ``value(as:make:)`` is inlined and specialized in
/// the module that reads it (Swift 6.3 does not specialize an `@inlinable`
/// `package` member across modules, and `AtomicLazyReference.load()` is not
/// inlinable: each read looked up generic metadata); SharedTables is no
/// product, so nothing outside this package sees it.
public final class AttachmentSlot: Sendable {
    /// The object's address, retained once by the slot (`Unmanaged`), or 0.
    @usableFromInline let object = Atomic<UInt>(0)

    public init() {}

    deinit {
        let stored = object.load(ordering: .acquiring)
        if stored != 0 { Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: stored)!).release() }
    }

    /// The object in the slot, made by `make` the first time (when two
    /// threads race, both may run `make`; one result is kept and returned
    /// to both).
    @inlinable
    public func value<T: AnyObject & Sendable>(as type: T.Type, make: () -> T) -> T {
        let stored = object.load(ordering: .acquiring)
        if stored != 0 { return Self.unwrap(stored, as: T.self) }
        let made = Unmanaged.passRetained(make())
        let (exchanged, original) = object.compareExchange(
            expected: 0, desired: UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
        if exchanged { return made.takeUnretainedValue() }
        made.release()
        return Self.unwrap(original, as: T.self)
    }

    @inlinable
    static func unwrap<T: AnyObject>(_ stored: UInt, as _: T.Type) -> T {
        let pointer = UnsafeRawPointer(bitPattern: stored)!
        assert(Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() is T,
               "AttachmentSlot: every caller must ask for the same type (\(T.self) here)")
        return Unmanaged<T>.fromOpaque(pointer).takeUnretainedValue()
    }
}
