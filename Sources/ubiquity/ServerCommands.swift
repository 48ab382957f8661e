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

/// Where the server keeps its database unless told otherwise.
func defaultServerData() -> String {
    UserDirectories.data + "/opendefaults/ubiquity-server"
}
