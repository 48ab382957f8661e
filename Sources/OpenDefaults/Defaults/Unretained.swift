import PropertyList
import Synchronization

/// A reference that does not retain its object, for objects known to
/// outlive every holder (a store's domains live as long as the process).
/// Using the object through ``withObject(_:)`` costs no retain or release.
struct Unretained<Object: AnyObject & Sendable>: @unchecked Sendable {
    private let reference: Unmanaged<Object>

    init(_ object: Object) { reference = .passUnretained(object) }

    @inline(__always)
    func withObject<Result>(_ body: (Object) -> Result) -> Result {
        reference._withUnsafeGuaranteedRef(body)
    }
}
