import Synchronization

/// Room on an object of a lower layer for one object of a layer above it,
/// made on first use and kept as long as the owner lives: the Foundation
/// edge's notification window on each `Defaults`, which the core neither
/// names nor reads.
///
/// Reading a filled slot costs one atomic load (a per-change path can use
/// it where a table keyed by the owner would cost a lock and a weak load).
/// The slot belongs to one layer: every caller asks for the same type.
///
/// ```swift
/// let window = defaults.attachment.value(as: Window.self) { Window() }
/// ```
package final class AttachmentSlot: Sendable {
    private final class Box: Sendable {
        let object: any AnyObject & Sendable
        init(_ object: any AnyObject & Sendable) { self.object = object }
    }
    private let box = AtomicLazyReference<Box>()

    package init() {}

    /// The object in the slot, made by `make` the first time (when two
    /// threads race, both may run `make`; one result is kept and returned
    /// to both).
    package func value<T: AnyObject & Sendable>(as type: T.Type, make: () -> T) -> T {
        if let box = box.load() { return unsafeDowncast(box.object, to: T.self) }
        let kept = box.storeIfNil(Box(make()))
        return unsafeDowncast(kept.object, to: T.self)
    }
}
