/// Why a configuration profile was refused: where inside it, and what was expected.
///
/// ```swift
/// do { _ = try ConfigurationProfile(bytes: bytes) } catch { print(error) }
/// // PayloadContent[0] (com.apple.ManagedClient.preferences) › com.apple.dock › Forced: expected an array, found a dictionary
/// ```
public struct ProfileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where in the profile: payload, domain and key names joined by " › " ("" for the whole file).
    public var place: String
    /// What was wrong, and what was expected.
    public var reason: String

    public init(_ place: String, _ reason: String) {
        self.place = place
        self.reason = reason
    }

    public var description: String { place.isEmpty ? reason : "\(place): \(reason)" }
}
