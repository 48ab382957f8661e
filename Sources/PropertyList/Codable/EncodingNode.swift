#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value under construction: containers share nodes by reference and
/// mutate them in place.
final class EncodingNode {
    var scalar: PropertyList?
    var keyed: [LiteralString: EncodingNode]?
    var unkeyed: [EncodingNode]?

    func setScalar(_ v: PropertyList) {
        scalar = v
        keyed = nil
        unkeyed = nil
    }

    var value: PropertyList? {
        if let keyed { return .dictionary(keyed.compactMapValues { $0.value }) }
        if let unkeyed { return .array(unkeyed.compactMap { $0.value }) }
        return scalar
    }
}
