/// A Settings bundle that cannot be read at all: no such directory, or a
/// root pane that is missing or is not a pane.
///
/// Problems in the rest of the bundle do not throw; they are collected in
/// ``SettingsBundle/problems``.
public struct SettingsBundleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path concerned.
    public let path: String
    /// What went wrong and what was expected.
    public let reason: String

    /// Creates an error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `path: reason`.
    public var description: String { "\(path): \(reason)" }
}
