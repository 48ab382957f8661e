import CoreMetrics
import PropertyList
import SharedTables
import Synchronization
import UbiquityBackend
import UbiquityProtocol

/// What a server learns of its fleets from the commits it carries (proposal 0018), as metrics:
///
/// | metric | kind | labels |
/// |---|---|---|
/// | `ubiquity_fleet_machines` | gauge | `organization`, `group`, `state` (`current`: applied the revision published last through this server; `behind`) |
/// | `ubiquity_fleet_reports_total` | counter | |
/// | `ubiquity_fleet_failures_total` | counter | `reason` (a refused declaration's kind: `tampered`, `untrusted`, `replayed`, `misdirected`, `malformed`, `apply`; `profile` for a profile that failed; `other`) |
/// | `ubiquity_fleet_report_latency_seconds` | histogram | (a publication through this server until a machine reports it applied) |
///
/// The published revision is the unsigned summary the publishing tool commits beside the signed
/// declaration (key `revision`): a number for the operator's gauges, never trusted by a machine.
/// A server that has not carried a publication since it started counts no machine as current or behind.
final class FleetMonitor: Sendable {
    struct Group: Hashable {
        var organization: String
        var group: String
    }

    struct State {
        /// The revision published last through this server, and when.
        var published: [Group: (revision: Int64, at: ContinuousClock.Instant)] = [:]
        /// Each machine's applied revision, per group.
        var applied: [Group: [String: Int64]] = [:]
        /// What each machine's last report said of each group (a refusal, failed profiles), to count changes once.
        var said: [Group: [String: String]] = [:]
        /// How many machines of each group applied its published revision (or a later one): kept
        /// as reports come, counted again only at a publication, so a report costs the same with
        /// 10 machines as with 10,000.
        var current: [Group: Int] = [:]

        /// The machines of `group` that applied `revision` or a later one, counted over them all.
        func counted(_ group: Group, atLeast revision: Int64) -> Int {
            (applied[group] ?? [:]).values.filter { $0 >= revision }.count
        }
    }

    let state = Lock(State())

    static let reasons: Set<String> = ["tampered", "untrusted", "replayed", "misdirected", "malformed", "apply"]

    /// Every failure reason a series from the start (at 0).
    static func recordStart() {
        ServerMetrics.counter("ubiquity_fleet_reports_total").increment(by: 0)
        for reason in reasons.sorted() + ["profile", "other"] {
            ServerMetrics.counter("ubiquity_fleet_failures_total", [("reason", reason)]).increment(by: 0)
        }
    }

    /// A commit applied to `store` of `organization`: a publication or a report, when it is one.
    func applied(_ entries: [UbiquityWireEntry], store: String, organization: String, token: String?) {
        if store.hasPrefix(UbiquityFleetNames.policyStorePrefix) {
            guard let entry = entries.first(where: { $0.key == UbiquityFleetNames.revisionKey }), let text = entry.value,
                  case .integer(let n)? = try? UbiquityWireValue.decodeChecked(text).get(), let revision = n.int64Value else { return }
            let group = Group(organization: organization, group: String(store.dropFirst(UbiquityFleetNames.policyStorePrefix.count)))
            state.withLock { s in
                s.published[group] = (revision, .now)
                s.current[group] = s.counted(group, atLeast: revision)
            }
            updateGauges(group)
        } else if UbiquityFleetNames.isStatusStore(store), let token,
                  let machine = UbiquityFleetNames.machine(ofToken: token), store == UbiquityFleetNames.statusStore(machine: machine),
                  let text = entries.first(where: { $0.key == UbiquityFleetNames.reportKey })?.value,
                  // decodeChecked: the value without its size (`decode` writes it again to measure it).
                  case .dictionary(let report)? = try? UbiquityWireValue.decodeChecked(text).get() {
            reported(report, machine: machine, organization: organization)
        }
    }

    func reported(_ report: [LiteralString: PropertyList], machine: String, organization: String) {
        ServerMetrics.counter("ubiquity_fleet_reports_total").increment()
        guard case .dictionary(let groups)? = report["Groups"] else { return }
        for (name, value) in groups {
            guard case .dictionary(let g) = value else { continue }
            let group = Group(organization: organization, group: name.string)
            var revision: Int64 = 0
            if case .integer(let n)? = g["Revision"], let v = n.int64Value { revision = v }
            var failures: [String] = []
            if case .string(let kind)? = g["RefusedKind"] { failures.append(Self.reasons.contains(kind) ? kind : "other") }
            var failedProfiles = 0
            if case .dictionary(let profiles)? = g["Profiles"] {
                for (_, outcome) in profiles { if case .string(let s) = outcome, s != "installed" { failedProfiles += 1 } }
            }
            let said = "\(revision)|\(failures.joined(separator: ","))|\(failedProfiles)"
            let (changed, latency) = state.withLock { s -> (Bool, Duration?) in
                let before = s.applied[group]?[machine]
                s.applied[group, default: [:]][machine] = revision
                if let published = s.published[group]?.revision {
                    s.current[group, default: 0] += (revision >= published ? 1 : 0) - ((before ?? -1) >= published ? 1 : 0)
                }
                let changed = s.said[group]?[machine] != said
                s.said[group, default: [:]][machine] = said
                var latency: Duration? = nil
                if let published = s.published[group], published.revision == revision, before != revision {
                    latency = .now - published.at
                }
                return (changed, latency)
            }
            if changed {
                for reason in failures { ServerMetrics.counter("ubiquity_fleet_failures_total", [("reason", reason)]).increment() }
                if failedProfiles > 0 { ServerMetrics.counter("ubiquity_fleet_failures_total", [("reason", "profile")]).increment(by: failedProfiles) }
            }
            if let latency { ServerMetrics.timer("ubiquity_fleet_report_latency_seconds").recordNanoseconds(latency.nanoseconds) }
            updateGauges(group)
        }
    }

    /// `ubiquity_fleet_machines` of `group`: current and behind, once a publication is known.
    func updateGauges(_ group: Group) {
        let counts = state.withLock { s -> (current: Int, behind: Int)? in
            guard s.published[group] != nil else { return nil }
            let current = s.current[group] ?? 0
            return (current, (s.applied[group]?.count ?? 0) - current)
        }
        guard let counts else { return }
        for (state, count) in [("current", counts.current), ("behind", counts.behind)] {
            Gauge(label: "ubiquity_fleet_machines", dimensions: [("organization", group.organization), ("group", group.group), ("state", state)])
                .record(count)
        }
    }

    /// Each group's count of current machines is what its machines' revisions say.
    func _checkInvariants() {
        state.withLock { s in
            for (group, published) in s.published {
                let counted = s.counted(group, atLeast: published.revision)
                precondition(s.current[group] ?? 0 == counted,
                             "FleetMonitor: \(s.current[group] ?? 0) machines of \(group.group) kept as current, \(counted) are")
            }
        }
    }
}
