/// OpenDefaults' version: the one place it is written. The tools print it
/// (`defaults --version`, `plutil --version`, `settings --version`) and the
/// packaging scripts read it from `defaults --version`.
///
/// ```swift
/// print(OpenDefaultsVersion.string)   // "0.7.0"
/// ```
package enum OpenDefaultsVersion {
    /// The version, `MAJOR.MINOR.PATCH`.
    package static let string = "0.7.0"
}
