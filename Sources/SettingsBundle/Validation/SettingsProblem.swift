/// Something wrong, or worth knowing, about a Settings bundle: where it is
/// (file, specifier index, key) and what was expected.
///
/// ```swift
/// for problem in bundle.problems where problem.severity == .error {
///     print(problem)  // Root.plist[4] key 'protocol': Titles has 4 entries but Values has 5
/// }
/// ```
public struct SettingsProblem: Sendable, Hashable, CustomStringConvertible {
    /// How serious a problem is.
    public enum Severity: String, Sendable, Hashable, Comparable {
        /// The bundle does not work as written: a pane is missing, a control has no key.
        case error
        /// It works, but not as its author meant: a default that no choice matches.
        case warning
        /// Worth knowing, not wrong: a specifier type from outside Apple's schema.
        case note

        private var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .note: 2
            }
        }
        public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    }

    /// How serious it is; `settings validate` fails on errors and warnings.
    public let severity: Severity
    /// The file, relative to the bundle (`Root.plist`, `de.lproj/Root.strings`).
    public let file: String
    /// The index in the pane's `PreferenceSpecifiers`, when it is about one specifier.
    public let index: Int?
    /// The defaults key concerned, when there is one.
    public let key: String?
    /// What is wrong and what was expected.
    public let message: String

    /// Creates a problem.
    public init(_ severity: Severity, file: String, index: Int? = nil, key: String? = nil, _ message: String) {
        self.severity = severity
        self.file = file
        self.index = index
        self.key = key
        self.message = message
    }

    /// `file[index] key 'k': message`, with the parts that apply.
    public var description: String {
        var where_ = file
        if let index { where_ += "[\(index)]" }
        if let key { where_ += " key '\(key)'" }
        return "\(severity.rawValue): \(where_): \(message)"
    }
}
