@_spi(Engine) import OpenDefaults
import PlatformIO
import PropertyList

/// `-app Name` on Linux: desktop entries (`Name=` or the file name) in the
/// XDG data folders, then application bundles with an `Info.plist`
/// (`/Applications`, `~/Applications`, `/usr/local/Applications`, `/opt`).
enum ApplicationLookup {
    static func identifier(for name: String) -> String? {
        if name.hasSuffix(".app") || name.contains("/") {
            if let id = bundleIdentifier(at: name) { return id }
        }
        let home = UserDirectories.home(in: nil)
        var dataDirs = [UserDirectories.data]
        dataDirs += (Environment["XDG_DATA_DIRS"] ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
        for dir in dataDirs {
            let apps = dir + "/applications"
            for file in listDirectory(apps) where file.hasSuffix(".desktop") {
                let id = String(file.dropLast(8))
                if id.lowercased() == name.lowercased() { return id }
                guard let text = try? FileIO.read(apps + "/" + file) else { continue }
                let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
                if lines.contains(where: { $0.trimmingCharacters() == "Name=\(name)" }) { return id }
            }
        }
        let bundleName = name.hasSuffix(".app") ? name : name + ".app"
        for dir in ["/Applications", home + "/Applications", "/usr/local/Applications", "/opt"] {
            if let id = bundleIdentifier(at: dir + "/" + bundleName) { return id }
        }
        return nil
    }

    static func bundleIdentifier(at bundle: String) -> String? {
        for candidate in [bundle + "/Contents/Info.plist", bundle + "/Info.plist"] {
            if let bytes = try? FileIO.read(candidate), let plist = try? PropertyList(decoding: bytes),
                case .string(let id)? = plist["CFBundleIdentifier"]
            {
                return id
            }
        }
        return nil
    }

    static func listDirectory(_ path: String) -> [String] {
        (FileIO.directoryEntries(path) ?? []).sorted()
    }
}
