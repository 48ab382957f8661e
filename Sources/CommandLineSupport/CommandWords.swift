import Spelling

package import ArgumentParser
import PlatformIO

/// Checks the words that name a tool's commands before argument-parser reads
/// them, so that a mistyped verb is named with the verb meant ("unknown command
/// 'instal'; did you mean 'install'?") rather than reported as an unexpected
/// argument.
package enum CommandWords {
    /// The message for the first word that should name a command of `root` (or of
    /// the command it leads to) and does not, with the command it was given to;
    /// nil when every such word is known. Only leading words are looked at: the
    /// first word that starts with `-` ends the walk (option values are never
    /// mistaken for commands).
    package static func unknown(in arguments: [String], root: any ParsableCommand.Type) -> (message: String, command: any ParsableCommand.Type, path: [String])? {
        var command = root
        var path = [root._commandName]
        for word in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !word.hasPrefix("-") else { return nil }
            if word == "help", command == root { return nil }
            let names = subcommands.map { ($0._commandName, $0) } + subcommands.flatMap { sub in sub.configuration.aliases.map { ($0, sub) } }
            if let next = names.first(where: { $0.0 == word }) {
                command = next.1
                path.append(next.1._commandName)
                continue
            }
            // A tool whose verb may be left out takes the word as its default command's argument.
            if command.configuration.defaultSubcommand != nil { return nil }
            let known = subcommands.map { $0._commandName }
            var message = "unknown command '\(word)'"
            if let meant = ClosestWord.suggestion(for: word, among: known) {
                message += "; did you mean '\(meant)'?"
            } else {
                message += "; the commands are \(known.joined(separator: ", "))"
            }
            return (message, command, path)
        }
        return nil
    }
}

extension AsyncParsableCommand {
    /// Runs the tool as `main()` does, after ``CommandWords`` has checked the
    /// words naming its commands; `rewrite` may first turn other spellings into
    /// argument-parser's (or refuse them, throwing a `ValidationError`).
    package static func mainCheckingCommands(rewrite: @Sendable ([String]) throws -> [String] = { $0 }) async {
        do {
            // Swift would turn bytes that are not UTF-8 into U+FFFD: a name or a value would silently differ.
            if let problem = Environment.nonUTF8Argument() {
                throw ValidationError(problem + "; names, keys and values must be UTF-8")
            }
            let arguments = try rewrite(Array(CommandLine.arguments.dropFirst()))
            if let (message, command, path) = CommandWords.unknown(in: arguments, root: self) {
                // As argument-parser reports an error: the problem, the usage of the command it was given to.
                let usage = usageString(for: command)
                StandardStream.error.write("Error: \(TerminalText.safe(message))\nUsage: \(usage)\n  See '\(path.joined(separator: " ")) --help' for more information.\n")
                Environment.exit(64)
            }
            var command = try parseAsRoot(arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            // argument-parser prints its errors as they are, and they quote the arguments
            // ("Unknown option '--…'") or carry another library's words (an address that did not
            // resolve): escaped here, once for every tool, so that no argument drives the terminal.
            let code = exitCode(for: error)
            guard code != .success else { exit(withError: error) }  // help and version, on standard output
            let message = fullMessage(for: error)
            if !message.isEmpty { StandardStream.error.write(TerminalText.safe(message, keepingNewlines: true) + "\n") }
            Environment.exit(code.rawValue)
        }
    }
}
