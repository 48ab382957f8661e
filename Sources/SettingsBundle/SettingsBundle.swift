#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PlatformIO
public import PropertyList

/// An iOS Settings bundle: its panes, their specifiers, its string tables,
/// the defaults it declares and what is wrong with it.
///
/// Reading starts at `Root.plist` (or a variant such as `Root~ipad.plist`)
/// and follows every `PSChildPaneSpecifier` depth first where it is
/// referenced, visiting each pane once. Nothing in the bundle is fatal
/// except a missing or unreadable root pane: a missing child pane, a pane
/// that is not a dictionary, a cycle, a broken strings table are all
/// recorded in ``problems``.
///
/// ```swift
/// let bundle = try SettingsBundle(path: "Examples/AppSettings/Settings.bundle")
/// bundle.defaultValues["protocol"]  // "SMTP"
/// Defaults.standard.register(settingsBundle: bundle)
/// ```
public struct SettingsBundle: Sendable {
    /// The bundle's directory.
    public let path: String
    /// The root pane's file, such as `Root.plist`.
    public let rootFile: String
    /// The panes read, by path relative to the bundle.
    public let panes: [String: Pane]
    /// The panes read, in walk order (the root first).
    public let paneOrder: [String]
    /// Every `DefaultValue`, by key. When a key is declared more than once
    /// the last default in walk order wins, as a `register(defaults:)` loop
    /// over the panes would have it; the conflict is a problem.
    public let defaultValues: [LiteralString: PropertyList]
    /// Keys declared without a `DefaultValue` anywhere, in walk order.
    public let keysWithoutDefault: [String]
    /// Everything wrong or noteworthy, in the order found.
    public let problems: [SettingsProblem]
    /// Other root panes in the bundle: device variants (`Root~ipad.plist`)
    /// and InAppSettingsKit's (`Root.inApp.plist`). Read one with ``init(path:root:)``.
    public let rootVariants: [String]
    /// The `.lproj` folders, by language name.
    public let localizations: [String: Localization]

    /// The root pane.
    public var root: Pane { panes[rootFile]! }

    /// The suite the values belong to: the root pane's
    /// `ApplicationGroupContainerIdentifier`, else nil (the application's own domain).
    public var applicationGroupContainerIdentifier: String? { root.applicationGroupContainerIdentifier }

    /// Whether there are problems of `severity` or worse.
    public func hasProblems(atLeast severity: SettingsProblem.Severity = .warning) -> Bool {
        problems.contains { $0.severity <= severity }
    }

    /// Reads the bundle at `path`, starting at `root`.
    ///
    /// - Throws: ``SettingsBundleError`` when the directory or the root pane
    ///   cannot be read, or the root is not a pane.
    public init(path: String, root: String = "Root.plist") throws(SettingsBundleError) {
        guard FileIO.directoryEntries(path) != nil else {
            throw SettingsBundleError(path: path, reason: "no such bundle (expected a directory containing Root.plist)")
        }
        var loader = BundleLoader(bundlePath: path)
        try loader.load(root: root)
        self.path = path
        self.rootFile = root
        self.panes = loader.panes
        self.paneOrder = loader.order
        self.defaultValues = loader.defaults
        self.keysWithoutDefault = loader.keysWithoutDefault.filter { loader.defaults[$0] == nil }
        self.rootVariants = loader.rootVariants.filter { $0 != root }
        self.localizations = loader.localizations
        self.problems = loader.problems
    }

    /// Reads the bundle for a device idiom: `Root~ipad.plist` for `"Pad"`
    /// when the bundle has one, else `Root.plist`.
    public init(path: String, idiom: String) throws(SettingsBundleError) {
        let variant = "Root~\(idiom.lowercased()).plist"
        let exists = FileStatus.exists(path + "/" + variant)
        try self.init(path: path, root: exists ? variant : "Root.plist")
    }

    /// The text for `key` in `table`, in the first of `languages` the bundle
    /// has it for (see ``LanguageMatching/candidates(for:)``); `key` itself
    /// when no table has it, as iOS shows it.
    ///
    /// ```swift
    /// bundle.localizedString("Warp Drive", table: "Root", languages: ["fr", "en"])
    /// ```
    public func localizedString(_ key: String, table: String, languages: [String]) -> String {
        for language in LanguageMatching.candidates(for: languages) {
            if let text = localizations[language]?.string(key, table: table) { return text }
        }
        return key
    }

    /// The language the bundle will show for `languages`: the first
    /// candidate it has a localization for, else nil.
    public func bestLocalization(for languages: [String]) -> String? {
        LanguageMatching.candidates(for: languages).first { localizations[$0] != nil }
    }

    /// Every key any pane declares, in walk order.
    public var keys: [String] {
        var seen = Set<LiteralString>()
        var out: [String] = []
        for file in paneOrder {
            for specifier in panes[file]!.specifiers {
                if let key = specifier.key, seen.insert(key).inserted { out.append(key) }
            }
        }
        return out
    }

    /// The specifiers that declare `key`, with their pane's file.
    public func specifiers(forKey key: String) -> [(file: String, specifier: Specifier)] {
        paneOrder.flatMap { file in
            panes[file]!.specifiers.filter { $0.key.map { LiteralString.equal($0, key) } ?? false }.map { (file, $0) }
        }
    }
}
