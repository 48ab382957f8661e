/// The elements of Apple's property-list DTD.
enum XMLTag: UInt8 {
    case plist, dict, key, array, string, integer, real, `true`, `false`, date, data

    init?(_ name: UnsafeRawBufferPointer) {
        @inline(__always) func eq(_ s: StaticString) -> Bool {
            guard s.utf8CodeUnitCount == name.count else { return false }
            let p = s.utf8Start
            for i in 0..<name.count where p[i] != name[i] { return false }
            return true
        }
        switch name.count {
        case 3: if eq("key") { self = .key } else { return nil }
        case 4:
            if eq("dict") { self = .dict } else if eq("real") { self = .real }
            else if eq("true") { self = .true } else if eq("date") { self = .date }
            else if eq("data") { self = .data } else { return nil }
        case 5:
            if eq("plist") { self = .plist } else if eq("array") { self = .array }
            else if eq("false") { self = .false } else { return nil }
        case 6: if eq("string") { self = .string } else { return nil }
        case 7: if eq("integer") { self = .integer } else { return nil }
        default: return nil
        }
    }

    /// `</name>`, for the reader's fast path.
    @inline(__always)
    var closingTag: StaticString {
        switch self {
        case .plist: "</plist>"
        case .dict: "</dict>"
        case .key: "</key>"
        case .array: "</array>"
        case .string: "</string>"
        case .integer: "</integer>"
        case .real: "</real>"
        case .true: "</true>"
        case .false: "</false>"
        case .date: "</date>"
        case .data: "</data>"
        }
    }

    var name: String {
        switch self {
        case .plist: "plist"
        case .dict: "dict"
        case .key: "key"
        case .array: "array"
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .true: "true"
        case .false: "false"
        case .date: "date"
        case .data: "data"
        }
    }
}
