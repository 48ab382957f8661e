#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

/// A file an application reads its policies from, as the installed profiles
/// make it: where it goes (without the system root), its bytes, the
/// application, and the keys it carries.
///
/// ```swift
/// file.path          // "/etc/chromium/policies/managed/opendefaults-com.example.chrome.json"
/// file.application   // "Chromium"
/// ```
package struct ApplicationFile: Sendable, Hashable {
    /// One key a file carries.
    package struct Entry: Sendable, Hashable {
        package var domain: String
        package var key: String
        /// Forced (mandatory, locked) or set once (recommended, a default).
        package var forced: Bool
    }

    package var path: String
    package var contents: [UInt8]
    package var application: String
    package var entries: [Entry]

    package init(path: String, contents: [UInt8], application: String, entries: [Entry]) {
        self.path = path
        self.contents = contents
        self.application = application
        self.entries = entries
    }

    var propertyList: PropertyList {
        .dictionary([
            "Path": .string(path),
            "Contents": .data(Data(contents)),
            "Application": .string(application),
            "Keys": .array(entries.map { .dictionary(["Domain": .string($0.domain), "Key": .string($0.key), "Forced": .boolean($0.forced)]) }),
        ])
    }

    init(propertyList value: PropertyList, place: String) throws(ProfileError) {
        guard case .dictionary(let d) = value, case .string(let path)? = d["Path"], case .data(let contents)? = d["Contents"],
              case .string(let application)? = d["Application"], case .array(let keys)? = d["Keys"] else {
            throw ProfileError(place, "expected a dictionary with Path, Contents, Application and Keys")
        }
        var entries: [Entry] = []
        for k in keys {
            guard case .dictionary(let e) = k, case .string(let domain)? = e["Domain"], case .string(let key)? = e["Key"],
                  case .boolean(let forced)? = e["Forced"] else { throw ProfileError(place, "a key without Domain, Key and Forced") }
            entries.append(Entry(domain: domain, key: key, forced: forced))
        }
        self.init(path: path, contents: Array(contents), application: application, entries: entries)
    }
}
