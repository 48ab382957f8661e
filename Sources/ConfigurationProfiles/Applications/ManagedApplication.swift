import PlatformIO

/// An application that reads its policies from its own files on Linux, and
/// the profile domain that manages it: the table every target is derived from
/// (proposal 0017). GNOME settings are not in it: any domain that is an
/// installed GSettings schema reaches dconf (``GSettingsSchemas``).
///
/// To add a browser of the Chrome family, add a row: its domain, its policy
/// folder (with `managed/` and `recommended/` inside) and where its program
/// lives.
///
/// ```swift
/// ManagedApplication.all.filter { $0.domain == "com.google.Chrome" }.map(\.folder)   // ["/etc/opt/chrome/policies"]
/// ```
package struct ManagedApplication: Sendable, Hashable {
    /// How the application reads its policies.
    package enum Format: Sendable, Hashable {
        /// JSON files of `policy: value` in `managed/` (mandatory) and `recommended/`, every file read.
        case chromePolicies
        /// One `policies.json` of `{"policies": {…}}`.
        case firefoxPolicies
    }

    /// The name shown to administrators.
    package var name: String
    /// The preference domain that manages it, as on macOS.
    package var domain: String
    package var format: Format
    /// Where it reads its policies (without the system root).
    package var folder: String
    /// Files whose presence says the application is installed.
    package var programs: [String]

    package static let all: [ManagedApplication] = [
        ManagedApplication(name: "Chromium", domain: "org.chromium.Chromium", format: .chromePolicies,
                           folder: "/etc/chromium/policies", programs: ["/usr/lib/chromium/chromium", "/usr/bin/chromium"]),
        ManagedApplication(name: "Google Chrome", domain: "com.google.Chrome", format: .chromePolicies,
                           folder: "/etc/opt/chrome/policies", programs: ["/opt/google/chrome/chrome"]),
        ManagedApplication(name: "Microsoft Edge", domain: "com.microsoft.Edge", format: .chromePolicies,
                           folder: "/etc/opt/edge/policies", programs: ["/opt/microsoft/msedge/msedge"]),
        ManagedApplication(name: "Brave", domain: "com.brave.Browser", format: .chromePolicies,
                           folder: "/etc/brave/policies", programs: ["/opt/brave.com/brave/brave"]),
        // Firefox reads `<SysConfD>/policies/policies.json`, SysConfD being `/etc/<application name>`:
        // `/etc/firefox` for Mozilla's builds, `/etc/firefox-esr` for Debian's firefox-esr.
        ManagedApplication(name: "Firefox", domain: "org.mozilla.firefox", format: .firefoxPolicies,
                           folder: "/etc/firefox/policies", programs: ["/usr/lib/firefox/firefox", "/opt/firefox/firefox"]),
        ManagedApplication(name: "Firefox ESR", domain: "org.mozilla.firefox", format: .firefoxPolicies,
                           folder: "/etc/firefox-esr/policies", programs: ["/usr/lib/firefox-esr/firefox-esr"]),
    ]

    /// Whether one of its programs is under `root`.
    package func isInstalled(root: String) -> Bool {
        programs.contains { FileStatus.exists(root + $0) }
    }
}
