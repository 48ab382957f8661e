import PropertyList

/// How a value is shown in a form field and recognised when posted back.
enum ValueText {
    static func text(_ value: PropertyList?) -> String {
        switch value {
        case nil: ""
        case .string(let s)?: s
        case .integer(let i)?: i.description
        case .real(let r)?: realText(r)
        case .boolean(let b)?: b ? "true" : "false"
        case .date(let d)?: PropertyList.iso8601String(for: d)
        case let other?: other.description
        }
    }

    static func realText(_ r: Double) -> String {
        if r.isFinite, r == r.rounded(), abs(r) < 1e15 { return String(Int64(r)) }
        return String(r)
    }
}
