extension PropertyList {
    /// A property-list integer: every `Int64`, and the `UInt64` values above
    /// `Int64.max` that binary property lists can carry.
    ///
    /// ```swift
    /// let big = PropertyList.Integer(UInt64.max)
    /// big.int64Value   // nil
    /// big.uint64Value  // 18446744073709551615
    /// let small: PropertyList.Integer = -5
    /// small.int64Value // -5
    /// ```
    public struct Integer: Sendable, Hashable, Comparable, ExpressibleByIntegerLiteral,
        CustomStringConvertible
    {
        // The two's-complement bits; `isLarge` when the value is above Int64.max.
        @usableFromInline let bits: UInt64
        @usableFromInline let isLarge: Bool

        /// A signed value.
        @inlinable public init(_ value: Int64) {
            bits = UInt64(bitPattern: value)
            isLarge = false
        }

        /// An unsigned value.
        @inlinable public init(_ value: UInt64) {
            bits = value
            isLarge = value > UInt64(Int64.max)
        }

        /// A value of any integer type, or nil when it lies outside
        /// `Int64.min...UInt64.max`.
        @inlinable public init?(exactly value: some BinaryInteger) {
            if let v = Int64(exactly: value) {
                self.init(v)
            } else if let v = UInt64(exactly: value) {
                self.init(v)
            } else {
                return nil
            }
        }

        @inlinable public init(integerLiteral value: Int64) {
            self.init(value)
        }

        /// The value as `Int64`, or nil when it is above `Int64.max`.
        @inlinable public var int64Value: Int64? {
            isLarge ? nil : Int64(bitPattern: bits)
        }

        /// The value as `UInt64`, or nil when it is negative.
        @inlinable public var uint64Value: UInt64? {
            (!isLarge && Int64(bitPattern: bits) < 0) ? nil : bits
        }

        /// The value as `Int`, clamped to `Int.min...Int.max`.
        @inlinable public var clampedInt: Int {
            if isLarge { return Int.max }
            return Int(clamping: Int64(bitPattern: bits))
        }

        /// True when the value is below zero.
        @inlinable public var isNegative: Bool {
            !isLarge && Int64(bitPattern: bits) < 0
        }

        /// The value as `Double` (rounded when it has more than 53 bits).
        @inlinable public var doubleValue: Double {
            isLarge ? Double(bits) : Double(Int64(bitPattern: bits))
        }

        public var description: String {
            isLarge ? String(bits) : String(Int64(bitPattern: bits))
        }

        public static func < (lhs: Integer, rhs: Integer) -> Bool {
            switch (lhs.isLarge, rhs.isLarge) {
            case (false, false): Int64(bitPattern: lhs.bits) < Int64(bitPattern: rhs.bits)
            case (true, true): lhs.bits < rhs.bits
            case (false, true): true
            case (true, false): false
            }
        }
    }
}
