import ArgumentParser
import Logging
import Metrics
import OpenDefaults
import OpenDefaultsUbiquity
import PlatformIO
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Prometheus
import UbiquityPostgres
import UbiquityServer
import UbiquitySQLite

/// `ubiquity backup`: a consistent copy of the SQLite database while the server runs.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the server's SQLite database to a file while it serves and writes (one consistent moment).",
        discussion: "The copy is checked and made 0600; an existing file is never replaced. For PostgreSQL, use pg_dump (see ubiquity(1))."
    )

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The backup file to make (it must not exist).")
    var destination: String

    func run() async throws {
        let directory = try database.sqliteDirectory(try database.resolved(try database.settings()))
        do {
            let s = try await SQLiteBackup.backup(directory: directory, to: destination)
            StandardStream.output.write("Backed up \(s) to \(destination) (\(s.bytes) bytes)\n")
        } catch {
            complain("\(error)")
            throw ExitCode(1)
        }
    }
}
