import PropertyList
import ArgumentParser
import PlatformIO
import SettingsBundle

/// `settings defaults <bundle>`: the defaults the bundle registers, as an XML plist.
struct PrintDefaults: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "defaults",
        abstract: "Print the defaults a Settings bundle registers, as an XML property list.",
        discussion: "Every DefaultValue of every pane reachable from the root; when a key is declared twice, the last in walk order."
    )

    @Argument(help: "The Settings.bundle folder.")
    var bundle: String

    @Option(help: "The root pane to start from, such as Root~ipad.plist.")
    var root: String = "Root.plist"

    func run() throws {
        do {
            let settings = try SettingsBundle(path: bundle, root: root)
            let bytes = try PropertyList.dictionary(settings.defaultValues).encoded(as: .xml)
            StandardStream.output.write(bytes)
        } catch let error as SettingsBundleError {
            StandardStream.error.write("settings: \(error)\n")
            throw ExitCode(2)
        }
    }
}
