import ArgumentParser
import ConfigurationProfiles
import PlatformIO
import ProfileSignatures
import PropertyList

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
