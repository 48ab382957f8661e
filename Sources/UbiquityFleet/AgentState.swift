#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
package import PropertyList

/// What a machine applied, per group (`state.plist`): the revision, the profiles the agent
/// installed for it, the signed declaration (kept while the server is away), and how each
/// profile fared. `pending` lists the identifiers of an apply under way: a crash between the
/// profiles' change and this file's leaves them counted as the agent's, never as installed by hand.
package struct AgentState: Sendable, Hashable {
    package struct Group: Sendable, Hashable {
        package var revision: Int64
        package var applied: Date
        /// The identifiers the agent installed for this group.
        package var profiles: [String]
        /// Per profile of the declaration: "installed", or "failed: <reason>".
        package var outcomes: [String: String]
        /// The last declaration refused for this group, and why (nil once one is applied after it).
        package var refusal: String?
        package var refusalKind: String?

        /// A group no revision of which was applied yet (its first declaration was refused, say).
        static let notApplied = Group(revision: 0, applied: Date(timeIntervalSince1970: 0), profiles: [], outcomes: [:])
    }

    package var groups: [String: Group] = [:]
    package var pending: [String] = []
    /// Why the last hand-over of the organisation's certificate was refused (nil: none refused since one was taken).
    package var handoverRefusal: String?

    package init() {}

    /// Every identifier the agent answers for (applied, or being applied).
    package var owned: Set<String> { Set(groups.values.flatMap(\.profiles)).union(pending) }

    package var propertyList: PropertyList {
        var d: [LiteralString: PropertyList] = ["Groups": groupsList(asReported: false), "Pending": .array(pending.map { .string($0) })]
        if let handoverRefusal { d["HandoverRefusal"] = .string(handoverRefusal) }
        return .dictionary(d)
    }

    package init(_ d: [LiteralString: PropertyList]) throws(FleetError) {
        guard case .dictionary(let g)? = d["Groups"] else { throw FleetError(.malformed, "the agent's state has no Groups") }
        for (name, value) in g {
            guard case .dictionary(let e) = value, case .integer(let r)? = e["Revision"], let revision = r.int64Value,
                  case .date(let applied)? = e["Applied"], case .array(let ids)? = e["Profiles"] else {
                throw FleetError(.malformed, "the agent's state of group \(name.string) is malformed")
            }
            var outcomes: [String: String] = [:]
            if case .dictionary(let o)? = e["Outcomes"] {
                for (k, v) in o { if case .string(let s) = v { outcomes[k.string] = s } }
            }
            var refusal: String? = nil, kind: String? = nil
            if case .string(let s)? = e["Refusal"] { refusal = s }
            if case .string(let s)? = e["RefusalKind"] { kind = s }
            groups[name.string] = Group(revision: revision, applied: applied,
                                        profiles: ids.compactMap { if case .string(let s) = $0 { s } else { nil } },
                                        outcomes: outcomes, refusal: refusal, refusalKind: kind)
        }
        if case .array(let p)? = d["Pending"] { pending = p.compactMap { if case .string(let s) = $0 { s } else { nil } } }
        if case .string(let s)? = d["HandoverRefusal"] { handoverRefusal = s }
    }

    package static func load(from files: AgentFiles) throws(FleetError) -> AgentState {
        try files.read(files.statePath).map { d throws(FleetError) in try AgentState(d) } ?? AgentState()
    }

    package func save(to files: AgentFiles) throws(FleetError) {
        try files.write(propertyList, to: files.statePath)
    }

    /// The status report sent to the server: per group, the revision applied, each profile's
    /// outcome, and the last refusal.
    package func report(machine: String, host: String, pinned: String, now: Date = Date()) -> PropertyList {
        var report: [LiteralString: PropertyList] = [
            "Machine": .string(machine), "Host": .string(host), "Reported": .date(now), "Groups": groupsList(asReported: true),
            "Pinned": .string(pinned),
        ]
        if let handoverRefusal { report["HandoverRefused"] = .string(handoverRefusal) }
        return .dictionary(report)
    }

    /// Each group as the state file keeps it (`Profiles`: the identifiers the agent installed,
    /// `Outcomes`, `Refusal`), or as the report tells it (`Profiles`: the outcomes, `Refused`).
    func groupsList(asReported: Bool) -> PropertyList {
        var list: [LiteralString: PropertyList] = [:]
        for (name, group) in groups {
            let outcomes = PropertyList.dictionary(Dictionary(uniqueKeysWithValues: group.outcomes.map { (LiteralString($0.key), PropertyList.string($0.value)) }))
            var d: [LiteralString: PropertyList] = ["Revision": PropertyList(group.revision), "Applied": .date(group.applied)]
            if asReported {
                d["Profiles"] = outcomes
            } else {
                d["Profiles"] = .array(group.profiles.map { .string($0) })
                d["Outcomes"] = outcomes
            }
            let refusal = asReported ? "Refused" : "Refusal"
            if let text = group.refusal { d[LiteralString(refusal)] = .string(text) }
            if let kind = group.refusalKind { d[LiteralString(refusal + "Kind")] = .string(kind) }
            list[LiteralString(name)] = .dictionary(d)
        }
        return .dictionary(list)
    }
}
