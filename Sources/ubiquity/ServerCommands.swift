import ArgumentParser
import Logging
import Metrics
import PlatformIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Prometheus

/// Where the server keeps its database unless told otherwise.
func defaultServerData() -> String {
    UserDirectories.data + "/opendefaults/ubiquity-server"
}
