/// A GVariant type string (`s`, `as`, `a{sv}`, `(ii)`…) as a GSettings schema
/// declares a key's type, parsed into a tree.
///
/// ```swift
/// let type = try GVariantType(parsing: "a{sv}")   // .dictionary(.basic("s"), .variant)
/// ```
package indirect enum GVariantType: Sendable, Hashable, CustomStringConvertible {
    /// One of `b y n q i u x t h d s o g`.
    case basic(Character)
    /// `v`: any value, carrying its own type.
    case variant
    /// `aT`.
    case array(GVariantType)
    /// `a{KV}`: keys of a basic type.
    case dictionary(GVariantType, GVariantType)
    /// `(T…)`.
    case tuple([GVariantType])
    /// `mT`.
    case maybe(GVariantType)

    static let basics: Set<Character> = ["b", "y", "n", "q", "i", "u", "x", "t", "h", "d", "s", "o", "g"]

    /// Parses a whole type string; throws the reason when it is not one type.
    package init(parsing text: String) throws(GVariantTypeError) {
        var rest = Substring(text)
        self = try Self.parseOne(&rest, depth: 0)
        guard rest.isEmpty else { throw GVariantTypeError(text: text, reason: "more than one type") }
    }

    private static func parseOne(_ text: inout Substring, depth: Int) throws(GVariantTypeError) -> GVariantType {
        guard depth < 32 else { throw GVariantTypeError(text: String(text), reason: "nested too deeply") }
        guard let c = text.popFirst() else { throw GVariantTypeError(text: String(text), reason: "a type is missing") }
        switch c {
        case _ where basics.contains(c): return .basic(c)
        case "v": return .variant
        case "m": return .maybe(try parseOne(&text, depth: depth + 1))
        case "a":
            if text.first == "{" {
                text.removeFirst()
                let key = try parseOne(&text, depth: depth + 1)
                guard case .basic = key else { throw GVariantTypeError(text: String(text), reason: "a dictionary key must be a basic type") }
                let value = try parseOne(&text, depth: depth + 1)
                guard text.popFirst() == "}" else { throw GVariantTypeError(text: String(text), reason: "a dictionary entry type is not closed") }
                return .dictionary(key, value)
            }
            return .array(try parseOne(&text, depth: depth + 1))
        case "(":
            var members: [GVariantType] = []
            while text.first != ")" {
                guard !text.isEmpty else { throw GVariantTypeError(text: String(text), reason: "a tuple type is not closed") }
                members.append(try parseOne(&text, depth: depth + 1))
            }
            text.removeFirst()
            return .tuple(members)
        default:
            throw GVariantTypeError(text: String(c), reason: "not a GVariant type")
        }
    }

    /// The type string.
    package var description: String {
        switch self {
        case .basic(let c): String(c)
        case .variant: "v"
        case .array(let t): "a" + t.description
        case .dictionary(let k, let v): "a{" + k.description + v.description + "}"
        case .tuple(let ts): "(" + ts.map(\.description).joined() + ")"
        case .maybe(let t): "m" + t.description
        }
    }
}

/// Why a GVariant type string was refused.
package struct GVariantTypeError: Error, Sendable, CustomStringConvertible {
    package var text: String
    package var reason: String
    package var description: String { "\(reason) (at \"\(text)\")" }
}
