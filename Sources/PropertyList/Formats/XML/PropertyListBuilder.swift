#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Builds the public tree (``PropertyList``) from what ``XMLReader`` reads.
struct PropertyListBuilder: XMLValueBuilder {
    /// Dictionaries met before, by a fingerprint of their keys' text (see
    /// ``RecurringKeys``). A fingerprint only finds a candidate: the keys
    /// themselves are compared before a shape is used.
    private var recurringKeys = RecurringKeys<UInt64>()

    @inline(__always)
    func string(_ text: UnsafeRawBufferPointer) -> PropertyList? {
        UTF8Text.string(text).map { .string($0) }
    }

    @inline(__always)
    func key(_ text: UnsafeRawBufferPointer) -> LiteralString? {
        UTF8Text.string(text).map { LiteralString($0) }
    }

    func description(of key: LiteralString) -> String { key.string }

    @inline(__always) func integer(_ n: PropertyList.Integer) -> PropertyList { .integer(n) }
    @inline(__always) func real(_ d: Double) -> PropertyList { .real(d) }
    @inline(__always) func boolean(_ b: Bool) -> PropertyList { .boolean(b) }
    @inline(__always) func date(_ t: Double) -> PropertyList { .date(Date(timeIntervalSinceReferenceDate: t)) }
    @inline(__always) func data(base64 text: UnsafeRawBufferPointer) -> PropertyList { .data(Data(Base64.decode(text))) }

    @inline(__always)
    static func fingerprint(_ fingerprint: UInt64, adding keyText: UnsafeRawBufferPointer) -> UInt64 {
        RecurringKeys.fingerprint(fingerprint, adding: keyText)
    }

    func array(taking stack: inout [PropertyList], from base: Int) -> PropertyList {
        let a = Array(stack[base...])
        stack.removeSubrange(base...)
        return .array(a)
    }

    mutating func dictionary(taking stack: inout [(LiteralString, PropertyList)], from base: Int, fingerprint: UInt64) -> PropertyList {
        if stack.count - base == 1, stack[base].0 == "CF$UID", case .integer(let n) = stack[base].1,
            let u = n.uint64Value, u <= UInt32.max
        {
            stack.removeLast()
            return .uid(u)
        }
        return .dictionary(recurringKeys.dictionary(taking: &stack, from: base, fingerprint: fingerprint))
    }
}
