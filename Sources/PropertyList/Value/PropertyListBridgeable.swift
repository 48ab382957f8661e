/// A class whose instances convert themselves to a property-list value when
/// handed over as `Any` — the seam through which Foundation's objects
/// (`NSNumber`, `NSString`, `NSData`, `NSDate`, `NSURL`, `NSArray`,
/// `NSDictionary`) reach ``PropertyList/init(bridging:)`` without this
/// module importing Foundation.
///
/// `OpenDefaultsFoundation` conforms Foundation's classes; a conformance is
/// consulted only for class instances, before Swift's own bridging casts,
/// so an `NSNumber` made from a `Bool` stays a boolean and one made from a
/// `Float` keeps its single precision.
///
/// ```swift
/// final class Celsius: PropertyListBridgeable {
///     let degrees: Double
///     init(_ degrees: Double) { self.degrees = degrees }
///     func propertyListValue() throws(PropertyListError) -> PropertyList { .real(degrees) }
/// }
/// try PropertyList(bridging: Celsius(21.5))  // .real(21.5)
/// ```
public protocol PropertyListBridgeable: AnyObject {
    /// The instance as a property-list value.
    /// - Throws: ``PropertyListError`` when it holds something that is not one.
    func propertyListValue() throws(PropertyListError) -> PropertyList
}
