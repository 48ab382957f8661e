#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An array index as a coding key.
struct IndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String
    init(_ index: Int) { intValue = index; stringValue = "Index \(index)" }
    init?(intValue: Int) { self.init(intValue) }
    init?(stringValue: String) { return nil }
}
