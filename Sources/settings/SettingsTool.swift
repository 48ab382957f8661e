import ArgumentParser
import CommandLineSupport
import PlatformIO

/// `settings`: Settings bundles on the command line, and the Settings app in the browser.
@main
struct SettingsTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Validate, inspect, install and serve iOS Settings bundles.",
        discussion: """
            Installed bundles live in $XDG_DATA_HOME/settings-bundles/<domain>/Settings.bundle \
            (~/.local/share/settings-bundles when XDG_DATA_HOME is unset). Values are written \
            through OpenDefaults, so `defaults read <domain>` and running apps see them at once.
            """,
        version: "settings (OpenDefaults) \(OpenDefaultsVersion.string)",
        subcommands: [Validate.self, PrintDefaults.self, Install.self, Serve.self]
    )

    /// A mistyped command is named with the one meant (``CommandWords``).
    static func main() async { await mainCheckingCommands() }
}
