import Spelling

import ArgumentParser

/// macOS tools whose long options take one dash (`profiles install -path f`):
/// each such word that names one of the tool's options becomes argument-parser's
/// `--path`; any other one-dash word of more than one letter is refused, where
/// argument-parser would read `-path` as `-p -a -t -h` (help: exit 0, nothing
/// done).
package enum SingleDashOptions {
    /// `arguments` with `-name` written `--name` for every `name` in `longNames`
    /// (and `-name=value` as `--name=value`); after a `--` nothing is changed.
    /// Throws a `ValidationError` naming the first one-dash word that is no
    /// option, with the option it most likely meant.
    package static func rewrite(_ arguments: [String], longNames: Set<String>) throws -> [String] {
        var out: [String] = []
        out.reserveCapacity(arguments.count)
        var ended = false
        for word in arguments {
            guard !ended else { out.append(word); continue }
            if word == "--" { ended = true; out.append(word); continue }
            guard word.hasPrefix("-"), !word.hasPrefix("--"), word.unicodeScalars.count > 2,
                  let first = word.unicodeScalars.dropFirst().first, first.properties.isAlphabetic else {
                out.append(word)
                continue
            }
            let body = word.dropFirst()
            let name = String(body.prefix { $0 != "=" })
            if longNames.contains(name) {
                out.append("-" + word)
                continue
            }
            var message = "unknown option '\(word)'"
            if let meant = ClosestWord.suggestion(for: name, among: longNames.sorted()) { message += "; did you mean '-\(meant)'?" }
            throw ValidationError(message)
        }
        return out
    }
}
