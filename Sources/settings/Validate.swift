import ArgumentParser
import PlatformIO
import SettingsBundle

/// `settings validate <bundle>`: prints every problem; fails on errors and warnings.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a Settings bundle against Apple's schema.",
        discussion: """
            Prints one line per problem: severity, file, specifier index, key and what was expected. \
            Exits 1 when there are errors or warnings (notes, such as specifier types from \
            InAppSettingsKit, are printed but do not fail), 2 when the bundle cannot be read at all.
            """
    )

    @Argument(help: "The Settings.bundle folder.")
    var bundle: String

    @Option(help: "The root pane to start from, such as Root~ipad.plist.")
    var root: String = "Root.plist"

    func run() throws {
        let settings: SettingsBundle
        do { settings = try SettingsBundle(path: bundle, root: root) } catch {
            StandardStream.error.write("settings: \(error)\n")
            throw ExitCode(2)
        }
        var out = ""
        for problem in settings.problems {
            var location = bundle + "/" + problem.file
            if let index = problem.index { location += "[\(index)]" }
            if let key = problem.key { location += " key '\(key)'" }
            out += "\(location): \(problem.severity.rawValue): \(problem.message)\n"
        }
        let count = { (s: SettingsProblem.Severity) in settings.problems.filter { $0.severity == s }.count }
        let (errors, warnings, notes) = (count(.error), count(.warning), count(.note))
        if settings.problems.isEmpty {
            out += "\(bundle): OK (\(settings.panes.count) panes, \(settings.defaultValues.count) defaults)\n"
        } else {
            out += "\(bundle): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"), \(notes) note\(notes == 1 ? "" : "s")\n"
        }
        StandardStream.output.write(out)
        if settings.hasProblems(atLeast: .warning) { throw ExitCode(1) }
    }
}

import PropertyList
