public import Configuration
public import PropertyList

/// A defaults value that cannot be read as the configuration type asked for.
///
/// ```swift
/// // defaults write com.example.server http.port -string eighty
/// try config.requiredInt(forKey: "http.port")  // throws: "… 'http.port' is the string "eighty" …"
/// ```
public struct DefaultsProviderError: Error, CustomStringConvertible, Sendable {
    /// The dotted key.
    public var key: String
    /// The type asked for.
    public var type: ConfigType
    /// The value found.
    public var value: PropertyList

    /// A description naming the key, the value and what was expected.
    public var description: String {
        "the defaults value for '\(key)' is \(value.kindDescription) \(value), which cannot be read as \(type.rawValue)"
    }
}

extension PropertyList {
    var kindDescription: String {
        switch self {
        case .string: "the string"
        case .integer: "the integer"
        case .real: "the real"
        case .boolean: "the boolean"
        case .date: "the date"
        case .data: "the data"
        case .uid: "the UID"
        case .array: "the array"
        case .dictionary: "the dictionary"
        }
    }
}
