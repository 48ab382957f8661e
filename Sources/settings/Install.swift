import ArgumentParser
import PlatformIO
import SettingsBundle

/// `settings install <bundle> --domain <id>`: makes a bundle known to the Settings app.
struct Install: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install a Settings bundle for an application domain.",
        discussion: "Copies the bundle to $XDG_DATA_HOME/settings-bundles/<domain>/Settings.bundle, replacing one installed before."
    )

    @Argument(help: "The Settings.bundle folder.")
    var bundle: String

    @Option(help: "The application's defaults domain, such as com.example.App.")
    var domain: String

    func run() throws {
        let catalog = SettingsCatalog()
        do {
            let installed = try catalog.install(bundleAt: bundle, domain: domain)
            StandardStream.output.write("Installed \(bundle) for \(domain) at \(installed.path)\n")
            let serious = installed.problems.filter { $0.severity != .note }.count
            if serious > 0 {
                StandardStream.error.write("settings: the bundle has \(serious) problem\(serious == 1 ? "" : "s"); see `settings validate \(bundle)`\n")
            }
        } catch {
            StandardStream.error.write("settings: \(error)\n")
            throw ExitCode(1)
        }
    }
}
