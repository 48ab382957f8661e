@_spi(Engine) import OpenDefaults
import PlatformIO

/// The Settings bundles installed for the Settings app: one folder per
/// application domain, `<directory>/<domain>/Settings.bundle`.
///
/// The directory is `$XDG_DATA_HOME/settings-bundles` (`~/.local/share/settings-bundles`
/// when `XDG_DATA_HOME` is unset or relative).
///
/// ```swift
/// let catalog = SettingsCatalog()
/// try catalog.install(bundleAt: "Examples/AppSettings/Settings.bundle", domain: "com.example.AppSettings")
/// catalog.installedDomains()  // ["com.example.AppSettings"]
/// ```
public struct SettingsCatalog: Sendable {
    /// The folder that holds the installed bundles.
    public let directory: String

    /// A catalog in `directory`.
    public init(directory: String) { self.directory = directory }

    /// The catalog of the current user, under `$XDG_DATA_HOME/settings-bundles`
    /// (this process's environment).
    public init() {
        self.directory = UserDirectories.data + "/settings-bundles"
    }

    /// The catalog of the user whose environment is `environment`, under
    /// its `XDG_DATA_HOME` (or `HOME`) as ``init()`` reads this process's.
    ///
    /// ```swift
    /// let catalog = SettingsCatalog(environment: ["HOME": "/home/ada"])
    /// catalog.directory  // "/home/ada/.local/share/settings-bundles"
    /// ```
    public init(environment: [String: String]) {
        self.directory = UserDirectories.data(in: environment) + "/settings-bundles"
    }

    /// Where the bundle of `domain` is installed.
    public func bundlePath(forDomain domain: String) -> String { directory + "/" + domain + "/Settings.bundle" }

    /// The domains with an installed bundle, sorted.
    public func installedDomains() -> [String] {
        let entries = FileIO.directoryEntries(directory) ?? []
        return entries.filter(isInstalled).sorted()
    }

    /// Whether a bundle is installed for `domain`.
    public func isInstalled(_ domain: String) -> Bool {
        PreferencesLayout.isValidDomainName(domain)
            && FileStatus.exists(bundlePath(forDomain: domain) + "/Root.plist")
    }

    /// Copies the bundle at `path` into the catalog for `domain`, replacing
    /// a bundle installed before. The bundle is read first: one whose root
    /// pane cannot be read is refused and nothing changes. Files are copied,
    /// never linked: a symbolic link inside the bundle is copied as what it
    /// points at, and one that leads outside the bundle refuses the install.
    ///
    /// - Returns: the installed bundle, for its problems.
    @discardableResult
    public func install(bundleAt path: String, domain: String) throws(SettingsBundleError) -> SettingsBundle {
        guard PreferencesLayout.isValidDomainName(domain), domain != PreferencesLayout.globalDomainName else {
            throw SettingsBundleError(path: domain, reason: "not a valid application domain name (expected something like com.example.App)")
        }
        _ = try SettingsBundle(path: path)
        let folder = directory + "/" + domain
        let staging = folder + "/.Settings.bundle.installing"
        let target = bundlePath(forDomain: domain)
        do {
            try FileIO.makeDirectories(folder)
        } catch {
            throw SettingsBundleError(path: folder, reason: "cannot create the folder: \(error.reason)")
        }
        try? FileIO.removeTree(staging)
        do throws(SettingsBundleError) {
            // Files are copied; links inside the bundle become copies, links out of it refuse the install.
            try BundleCopy.copy(from: path, to: staging)
        } catch {
            try? FileIO.removeTree(staging)
            throw error
        }
        do {
            try FileIO.removeTree(target)
            try FileIO.rename(staging, to: target)
        } catch {
            try? FileIO.removeTree(staging)
            throw SettingsBundleError(path: target, reason: "cannot install the bundle: \(error.reason)")
        }
        return try SettingsBundle(path: target)
    }

    /// Removes the bundle installed for `domain` (its defaults stay).
    public func uninstall(domain: String) throws(SettingsBundleError) {
        guard PreferencesLayout.isValidDomainName(domain) else {
            throw SettingsBundleError(path: domain, reason: "not a valid application domain name")
        }
        let folder = directory + "/" + domain
        guard (try? FileStatus.of(folder, followingLinks: false)) != nil else {
            throw SettingsBundleError(path: folder, reason: "cannot remove: no bundle is installed for \(domain)")
        }
        do { try FileIO.removeTree(folder) } catch {
            throw SettingsBundleError(path: folder, reason: "cannot remove: \(error.reason)")
        }
    }
}
