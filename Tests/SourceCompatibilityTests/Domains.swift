import Foundation
import OpenDefaults

/// Registration, suites, volatile and persistent domains, forced values.
func workingWithDomains(_ defaults: UserDefaults) -> [String] {
    defaults.register(defaults: ["CompatVolume": 5, "CompatName": "Guest", "CompatRecent": [String]()])
    defaults.addSuite(named: "group.com.example.shared")
    defaults.removeSuite(named: "group.com.example.shared")
    defaults.setVolatileDomain(["Mode": "demo"], forName: "Demo")
    let demo: [String: Any] = defaults.volatileDomain(forName: "Demo")
    let names: [String] = defaults.volatileDomainNames
    defaults.removeVolatileDomain(forName: "Demo")
    defaults.setPersistentDomain(["Theme": "dark"], forName: "com.example.other")
    let other: [String: Any]? = defaults.persistentDomain(forName: "com.example.other")
    defaults.removePersistentDomain(forName: "com.example.other")
    let global = defaults.persistentDomain(forName: UserDefaults.globalDomain)
    let arguments = defaults.volatileDomain(forName: UserDefaults.argumentDomain)
    let registered = defaults.volatileDomain(forName: UserDefaults.registrationDomain)
    let forced: Bool = defaults.objectIsForced(forKey: "CompatVolume")
    let forcedThere: Bool = defaults.objectIsForced(forKey: "CompatVolume", inDomain: UserDefaults.globalDomain)
    let synchronized: Bool = defaults.synchronize()
    return [String(demo.count), String(names.count), String(other?.count ?? 0), String(global?.count ?? 0), String(arguments.count),
        (registered["CompatName"] as? String) ?? "none", String(forced), String(forcedThere), String(synchronized)]
}
