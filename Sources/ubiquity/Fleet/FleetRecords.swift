import PlatformIO
import PropertyList
import UbiquityBackend
import UbiquityProtocol
import Foundation

/// What the server's database says of an organisation's machines: the entry the server made
/// at enrolment, the last report each machine sent, and when its credential was last used.
enum FleetRecords {
    struct Machine: Codable {
        struct Group: Codable {
            var name: String
            /// The revision the machine applied (nil: none yet).
            var revision: Int64?
            var applied: Date?
            /// Profile → why it failed.
            var failures: [String: String]
            /// The last declaration the machine refused, and why.
            var refused: String?
            var refusedKind: String?
        }
        var machine: String
        var host: String
        var enrolled: Date?
        var lastSeen: Date?
        var reported: Date?
        /// The SHA-256 of the organisation's certificate the machine pins now.
        var pinned: String?
        /// Why the machine refused the last hand-over of the certificate, if it did.
        var handoverRefused: String?
        var groups: [Group]
    }

    static func machines(of organization: String, backend: any UbiquityBackend) async throws -> [Machine] {
        guard let account = try await backend.accounts().first(where: { $0.name == organization }) else {
            throw BackendError(status: 404, "no organisation is called \(organization)")
        }
        let names = UbiquityFleetNames.self
        // The enrolled machines are the machine credentials (a removed machine's is deleted);
        // what each was enrolled with is in its status store, or, for machines enrolled by an
        // earlier version, in the one store of all machines (which could hold only 1,024).
        let tokens = try await backend.tokens(account: organization)
        let legacy = try await backend.changes(account: account.id, store: names.machinesStore, after: 0)
        let legacyEntries = Dictionary(legacy.entries.map { ($0.key, $0) }) { _, last in last }
        let machineTokens = tokens.compactMap { t in names.machine(ofToken: t.name).map { (id: $0, lastUsed: t.lastUsed) } }
        var out: [Machine] = []
        for (id, used) in machineTokens.sorted(by: { $0.id < $1.id }) {
            let status = try await backend.changes(account: account.id, store: names.statusStore(machine: id), after: 0)
            let enrolment = status.entries.first { $0.key == names.enrolmentKey } ?? legacyEntries[id]
            guard let entry = enrolment, let text = entry.value, case .dictionary(let d)? = UbiquityWireValue.decode(text)?.value else { continue }
            var host = "", groups: [String] = [], enrolled: Date? = nil
            if case .string(let h)? = d["Host"] { host = h }
            if case .array(let g)? = d["Groups"] { groups = g.compactMap { if case .string(let s) = $0 { s } else { nil } } }
            if case .date(let e)? = d["Enrolled"] { enrolled = e }
            var machine = Machine(machine: id, host: host, enrolled: enrolled,
                                  lastSeen: used.map { Date(timeIntervalSince1970: Double($0)) }, reported: nil, pinned: nil, handoverRefused: nil,
                                  groups: groups.map { Machine.Group(name: $0, revision: nil, applied: nil, failures: [:]) })
            if let text = status.entries.first(where: { $0.key == UbiquityFleetNames.reportKey })?.value,
               case .dictionary(let report)? = UbiquityWireValue.decode(text)?.value {
                if case .date(let r)? = report["Reported"] {
                    machine.reported = r
                    if machine.lastSeen.map({ $0 < r }) ?? true { machine.lastSeen = r }
                }
                if case .string(let p)? = report["Pinned"] { machine.pinned = p }
                if case .string(let r)? = report["HandoverRefused"] { machine.handoverRefused = r }
                if case .dictionary(let g)? = report["Groups"] {
                    for i in machine.groups.indices {
                        guard case .dictionary(let e)? = g[LiteralString(machine.groups[i].name)] else { continue }
                        if case .integer(let n)? = e["Revision"], let v = n.int64Value, v > 0 { machine.groups[i].revision = v }
                        if case .date(let a)? = e["Applied"], a.timeIntervalSince1970 > 0 { machine.groups[i].applied = a }
                        if case .dictionary(let p)? = e["Profiles"] {
                            for (id, outcome) in p {
                                if case .string(let s) = outcome, s != "installed" { machine.groups[i].failures[id.string] = s }
                            }
                        }
                        if case .string(let s)? = e["Refused"] { machine.groups[i].refused = s }
                        if case .string(let s)? = e["RefusedKind"] { machine.groups[i].refusedKind = s }
                    }
                }
            }
            out.append(machine)
        }
        return out
    }

    static func json(_ machines: [Machine]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Milliseconds kept: a report's time against a publication's is a figure of its own.
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        return String(decoding: try encoder.encode(machines), as: UTF8.self)
    }
}
