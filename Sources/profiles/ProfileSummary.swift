import ConfigurationProfiles
import PropertyList

/// Installed profiles and conflicts as text lines and JSON values.
enum ProfileSummary {
    static func line(_ p: InstalledProfile) -> String {
        let forced = p.forcedKeys.values.reduce(0) { $0 + $1.count }
        return "\(p.identifier)\t\(p.displayName)\t\(p.target)\t\(p.signature.label)\t\(plural(forced, "forced key")) in \(plural(p.forcedKeys.count, "domain"))\n"
    }

    static func line(_ c: ProfileConflict) -> String {
        "conflict (\(c.target)): \(c.domain) \(c.key) is forced by \(c.winner) (in force) and differently by \(c.overridden.joined(separator: ", "))\n"
    }

    static func json(_ p: InstalledProfile) -> PropertyList {
        func table(_ t: [String: [String]]) -> PropertyList {
            .dictionary(Dictionary(uniqueKeysWithValues: t.map { (LiteralString($0.key), PropertyList.array($0.value.map(PropertyList.string))) }))
        }
        var signature: [LiteralString: PropertyList] = ["status": .string(p.signature.label)]
        switch p.signature {
        case .unsigned: break
        case .verified(let signer): signature["signer"] = .string(signer)
        case .unverified(let signer, let reason): signature["signer"] = .string(signer); signature["reason"] = .string(reason)
        }
        var target: [LiteralString: PropertyList] = ["scope": .string(p.target == .system ? "System" : "User")]
        if case .user(let name) = p.target { target["user"] = .string(name) }
        return .dictionary([
            "identifier": .string(p.identifier), "display_name": .string(p.displayName), "uuid": .string(p.uuid),
            "version": .integer(.init(p.version)), "target": .dictionary(target), "removal_disallowed": .boolean(p.removalDisallowed),
            "installed_at": .date(p.installedAt), "install_order": .integer(.init(Int64(p.sequence))),
            "signature": .dictionary(signature), "forced_keys": table(p.forcedKeys), "set_once_keys": table(p.setOnceKeys),
            "ignored_payloads": .array(p.ignoredPayloads.map(PropertyList.string)),
        ])
    }

    static func json(_ c: ProfileConflict) -> PropertyList {
        .dictionary([
            "target": .string(c.target.description), "domain": .string(c.domain), "key": .string(c.key),
            "in_force": .string(c.winner), "overridden": .array(c.overridden.map(PropertyList.string)),
        ])
    }
}
