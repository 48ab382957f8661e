/// The user's base folders, as the XDG Base Directory Specification defines
/// them: the one lookup every module uses (the defaults' files, the iCloud
/// store's local copies, installed Settings bundles, the sync server's
/// database, applications' desktop entries).
///
/// A variable that is unset, empty or relative is ignored, as the
/// specification says; the home folder is `$HOME`, else the password
/// database's, else `/`.
///
/// ```swift
/// UserDirectories.config   // "/home/ada/.config", or $XDG_CONFIG_HOME
/// UserDirectories.data     // "/home/ada/.local/share", or $XDG_DATA_HOME
/// ```
package enum UserDirectories {
    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    package static var config: String { config(in: nil) }

    /// `$XDG_DATA_HOME`, else `~/.local/share`.
    package static var data: String { data(in: nil) }

    /// ``config`` for the given environment (this process's when nil).
    package static func config(in environment: [String: String]?) -> String {
        lookup("XDG_CONFIG_HOME", default: ".config", in: environment)
    }

    /// ``data`` for the given environment (this process's when nil).
    package static func data(in environment: [String: String]?) -> String {
        lookup("XDG_DATA_HOME", default: ".local/share", in: environment)
    }

    /// The home folder: `$HOME`, else the password database's, else `/`.
    package static func home(in environment: [String: String]?) -> String {
        let given = environment.map { $0["HOME"] } ?? Environment["HOME"]
        if let given, !given.isEmpty { return given }
        return Environment.passwdHome() ?? "/"
    }

    private static func lookup(_ variable: String, default relative: String, in environment: [String: String]?) -> String {
        let value = environment.map { $0[variable] } ?? Environment[variable]
        if let value, value.hasPrefix("/") { return value }
        let home = home(in: environment)
        return (home.hasSuffix("/") ? home : home + "/") + relative
    }
}
