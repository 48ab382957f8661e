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

/// Where the server's data is: `--data DIR` (SQLite) or `--postgres URL`,
/// from the command line, `UBIQUITY_*` variables or the `--config` file.
struct DatabaseOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A settings file (a property list, such as /etc/opendefaults/ubiquity.plist): its keys are the options' names.",
        discussion: "The command line wins over UBIQUITY_* environment variables, which win over the file."))
    var config: String?

    @Option(help: "The folder of the SQLite database (default: $XDG_DATA_HOME/opendefaults/ubiquity-server).")
    var data: String?

    @Option(help: ArgumentHelp(
        "A PostgreSQL database instead of SQLite: postgres://USER:PASSWORD@HOST:PORT/DB or postgres:///DB?host=/socket/folder.",
        discussion: "Several servers may share one PostgreSQL database. Beyond loopback, TLS is required unless the URL says sslmode=disable."))
    var postgres: String?

    @Option(name: .customLong("pool-size"), help: "Connections to PostgreSQL per server (the listener's not counted; default \(PostgresBackend.defaultPoolSize)).")
    var poolSize: Int?

    /// The database after the command line, the environment and the settings file.
    struct Resolved {
        var data: String?
        var postgres: String?
        var poolSize: Int
    }

    /// The settings file and environment, or a message naming what is wrong and exit status 64.
    func settings() throws -> ServerSettings {
        do { return try ServerSettings(file: config) } catch {
            complain("\(error)")
            throw ExitCode(64)
        }
    }

    /// Merges and checks; a wrong combination is a usage error (64).
    func resolved(_ settings: ServerSettings) throws -> Resolved {
        func usage(_ message: String) -> ExitCode {
            complain("\(message)")
            return ExitCode(64)
        }
        let r: Resolved
        do {
            r = Resolved(data: data ?? (postgres == nil ? settings.string("data") : nil),
                         postgres: postgres ?? (data == nil ? settings.string("postgres") : nil),
                         poolSize: try poolSize ?? settings.int("pool-size") ?? PostgresBackend.defaultPoolSize)
        } catch { throw usage("\(error)") }
        if r.data != nil && r.postgres != nil { throw usage("data and postgres are two different databases: give one") }
        guard (PostgresBackend.writers + 1...1_000).contains(r.poolSize) else {
            throw usage("pool-size must be between \(PostgresBackend.writers + 1) and 1000")
        }
        if let postgres = r.postgres {
            do { _ = try PostgresLocation(postgres) } catch { throw usage(error.description) }
        }
        return r
    }

    /// The SQLite database's folder; a PostgreSQL database is refused (exit 1): pg_dump and pg_restore are its tools.
    func sqliteDirectory(_ r: Resolved) throws -> String {
        if r.postgres != nil {
            complain("a PostgreSQL database is backed up with pg_dump -Fc and restored with pg_restore, then checked with `ubiquity check`")
            throw ExitCode(1)
        }
        return r.data ?? defaultServerData()
    }

    /// Opens the database (a server's SQLite folder `exclusive`ly), or explains on standard error why not and exits 1.
    /// With `existing`, a SQLite database that is not there is refused rather than made (commands
    /// that manage a server's database: a mistyped `--data`, or a forgotten `--config`, would
    /// otherwise act on a new, empty one and report success).
    func open(exclusive: Bool, existing: Bool = false, quota: AccountQuota? = nil, resolved given: Resolved? = nil) async throws -> any UbiquityBackend {
        let r = try given ?? resolved(try settings())
        if let postgres = r.postgres {
            do {
                return try await PostgresBackend.open(try PostgresLocation(postgres), poolSize: r.poolSize, quota: quota)
            } catch {
                complain("\(error)")
                throw ExitCode(1)
            }
        }
        let directory = r.data ?? defaultServerData()
        if existing, !FileStatus.exists(SQLiteBackend.databasePath(in: directory)) {
            complain("no database in \(directory) (no ubiquity.sqlite there): name the server's with --config FILE (such as /etc/opendefaults/ubiquity.plist), --data DIR or --postgres URL; `ubiquity serve` or `ubiquity account add --create` makes a new one")
            throw ExitCode(1)
        }
        do { return try await SQLiteBackend.open(directory: directory, exclusive: exclusive, quota: quota) } catch {
            complain("cannot open the database in \(directory): \(error)")
            throw ExitCode(1)
        }
    }
}
