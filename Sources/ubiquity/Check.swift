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

/// `ubiquity check`: the database's invariants.
struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the server's database: every store's revisions without gaps, counts and sizes as recorded."
    )

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let backend = try await database.open(exclusive: false, existing: true)
        let problems = try await backend.check()
        try? await backend.close()
        for p in problems { complain("\(p)") }
        if !problems.isEmpty { throw ExitCode(1) }
        StandardStream.output.write("ok\n")
    }
}
