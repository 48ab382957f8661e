import ArgumentParser
import CommandLineSupport
import ConfigurationProfiles
import PlatformIO
import PropertyList

/// `profiles`: configuration profiles (`.mobileconfig`) for managed preferences.
@main
struct ProfilesTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: "Install, remove, list and check configuration profiles (.mobileconfig) that set managed preferences.",
        discussion: """
            A profile's preference payloads (com.apple.ManagedClient.preferences with Forced, Set-Once and \
            Often, or custom-settings payloads named for their domain) become managed preferences; other \
            payloads (Wi-Fi, certificates, restrictions, …) do not apply on this system and are listed as such. \
            Installed profiles live in <managed>/profiles (see profiles(1)); installing and removing need root.
            """,
        version: "profiles (OpenDefaults) \(OpenDefaultsVersion.string)",
        subcommands: [Install.self, Remove.self, List.self, Show.self, Validate.self, Status.self, Apply.self]
    )

    /// Every long option of every command: macOS's one-dash spellings of them
    /// (`-path`, `-identifier`, `-user`, `-output`, …) are taken as `--path` and so on.
    static let longOptions: Set<String> = [
        "path", "user", "identifier", "output", "all", "quiet", "force", "trust", "signature-policy", "strict", "help", "version",
    ]

    /// macOS's spellings (``SingleDashOptions``), and a mistyped command named with the one meant (``CommandWords``).
    static func main() async {
        await mainCheckingCommands { try SingleDashOptions.rewrite($0, longNames: longOptions) }
    }
}

/// Prints `message` to standard error as `profiles: message` and exits 1.
/// Text from a profile in it (names, identifiers, keys) reaches the terminal escaped.
func fail(_ message: String) -> ExitCode {
    complain(message)
    return ExitCode(1)
}

/// Prints `message` to standard error as `profiles: message`, escaped as ``say(_:)`` escapes.
func complain(_ message: String) {
    StandardStream.error.write(TerminalText.safe("profiles: \(message)\n", keepingNewlines: true))
}

/// Prints text for a person to standard output: anything in it that came from a
/// profile (display names, identifiers, keys, values) with its control, C1 and
/// bidirectional characters escaped (``TerminalText``), so that a profile cannot
/// drive the terminal of the administrator who reads it.
func say(_ text: String) {
    StandardStream.output.write(TerminalText.safe(text, keepingNewlines: true))
}

/// Text helpers for counts.
func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }

/// Says what applications' own folders could not be brought to, and fails:
/// the profiles are in place for OpenDefaults, and the next change of
/// profiles tries the applications' files again.
func reportApplicationProblems(_ problems: [String]) throws {
    guard !problems.isEmpty else { return }
    for p in problems { complain(p) }
    complain("the profiles are in place for programs using OpenDefaults, but not every application's own files are; the next `profiles install` or `remove` tries again")
    throw ExitCode(1)
}

/// The lines naming which application obeys `prefs`' keys, and where (`Chromium: /etc/…/opendefaults-x.json (2 forced keys)`).
func applicationLines(for prefs: ManagedPreferences, store: ProfileStore) -> [String] {
    applicationLines(forced: prefs.forced.mapValues { Set($0.keys.map(\.string)) },
                     setOnce: prefs.setOnce.mapValues { Set($0.keys.map(\.string)) }, store: store)
}

/// As above, from the keys alone (what `show` knows of an installed profile without root).
func applicationLines(forced: [String: Set<String>], setOnce: [String: Set<String>], store: ProfileStore) -> [String] {
    guard let files = try? store.applicationManifest().files else { return [] }
    var lines: [String] = []
    for file in files {
        let mine = file.entries.filter { e in (e.forced ? forced[e.domain] : setOnce[e.domain])?.contains(e.key) == true }
        guard !mine.isEmpty else { continue }
        lines.append("\(file.application): \(file.path) (\(plural(mine.count, mine.allSatisfy(\.forced) ? "forced key" : "key")))"
                     + (isInstalled(file.application, store: store) ? "" : "; \(file.application) is not installed yet"))
    }
    return lines
}

/// Whether the application named so is installed (GNOME's settings, not in the table: always, as any GSettings program reads them).
func isInstalled(_ application: String, store: ProfileStore) -> Bool {
    ManagedApplication.all.first { $0.name == application }.map { $0.isInstalled(root: store.applicationRoot ?? "") } ?? true
}
