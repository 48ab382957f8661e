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
import UbiquityBackend
import UbiquityServer
import UbiquitySQLite

/// `ubiquity restore`: a backup put in place of the database of a stopped server.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup in place of the server's SQLite database (the server stopped); the replaced database is kept aside.",
        discussion: "The backup is checked first; afterwards the restored database is checked as `ubiquity check` does."
    )

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The backup file (made by `ubiquity backup`).")
    var backup: String

    func run() async throws {
        let resolved = try database.resolved(try database.settings())
        let directory = try database.sqliteDirectory(resolved)
        do {
            let (s, aside) = try await SQLiteBackup.restore(from: backup, into: directory)
            StandardStream.output.write("Restored \(s) into \(directory)\n")
            if let aside { StandardStream.output.write("The database it replaced is kept as \(aside)\n") }
        } catch {
            complain("\(error)")
            throw ExitCode(1)
        }
        let backend = try await database.open(exclusive: false, resolved: resolved)
        let problems = try await backend.check()
        try? await backend.close()
        for p in problems { complain("\(p)") }
        if !problems.isEmpty { throw ExitCode(1) }
        StandardStream.output.write("check: ok\n")
    }
}
