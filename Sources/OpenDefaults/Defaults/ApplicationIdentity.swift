import PlatformIO
import PropertyList

/// Finds the application's identifier without Foundation's `Bundle`.
enum ApplicationIdentity {
    /// The bundle identifier from `Info.plist` beside the executable or in
    /// `../Info.plist` (a bundle's `Contents/MacOS/` layout), else the
    /// executable's file name, as Foundation on Linux names its file.
    static func detect() -> String {
        let executable = executablePath()
        let directory = FileIO.parentDirectory(of: executable)
        for candidate in [directory + "/Info.plist", FileIO.parentDirectory(of: directory) + "/Info.plist"] {
            if let bytes = try? FileIO.read(candidate), let plist = try? PropertyList(decoding: bytes),
                case .string(let id)? = plist["CFBundleIdentifier"], PreferencesLayout.isValidDomainName(id)
            {
                return id
            }
        }
        let name = FileIO.lastComponent(of: executable)
        return PreferencesLayout.isValidDomainName(name) ? name : "unknown"
    }

    static func executablePath() -> String {
        #if os(Linux)
        let link = FileIO.resolvingSymbolicLinks("/proc/self/exe")
        if link != "/proc/self/exe" { return link }
        #endif
        return CommandLine.arguments.first ?? "unknown"
    }
}
