public import Foundation

/// Where `swift build` put the package's executables: the folder of the
/// running test bundle (or one above it) that holds `defaults`, else
/// `.build/debug` in the repository.
///
/// ```swift
/// let tool = Products.directory.appendingPathComponent("profiles").path
/// ```
public enum Products {
    public static let directory: URL = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("defaults").path) { return url }
            url.deleteLastPathComponent()
        }
        return Requirement.repositoryRoot.appendingPathComponent(".build/debug")
    }()

    /// The path of the built executable `name`.
    public static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}
