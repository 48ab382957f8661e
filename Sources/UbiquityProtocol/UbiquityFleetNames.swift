/// How a fleet lives in the sync protocol (proposal 0018): an organisation is an account, its
/// machines are tokens of it, and its declarations and reports are stores. These names are the
/// whole contract between the server's fleet rules, the agent and the administrator's tools.
///
/// ```swift
/// UbiquityFleetNames.policyStore(group: "desktops")     // "fleet.policy.desktops"
/// UbiquityFleetNames.machine(ofToken: "machine.4f2a…")  // "4f2a…"
/// ```
public enum UbiquityFleetNames {
    /// The token that enrols machines (its secret is the enrolment secret): it may only enrol.
    public static let enrolmentToken = "enrolment"
    /// The administrator's token, made with the organisation.
    public static let administratorToken = "admin"
    /// A machine's token is named `machine.<machine id>`.
    public static let machineTokenPrefix = "machine."
    /// A group's declaration: the store `fleet.policy.<group>`, key ``declarationKey``.
    public static let policyStorePrefix = "fleet.policy."
    /// A machine's status: the store `fleet.status.<machine id>`, with its report (key
    /// ``reportKey``, the machine's) and what it was enrolled with (key ``enrolmentKey``, the server's).
    public static let statusStorePrefix = "fleet.status."
    /// Where earlier versions kept every machine's enrolment, a key per machine id (read for
    /// machines enrolled then; no longer written: a store holds at most 1,024 keys).
    public static let machinesStore = "fleet.machines"
    public static let enrolmentKey = "enrolment"
    /// The organisation itself: its signing certificate (key ``certificateKey``).
    public static let organizationStore = "fleet.organization"
    public static let declarationKey = "declaration"
    /// Beside the declaration, unsigned: its revision, for the server's metrics (never trusted by a machine).
    public static let revisionKey = "revision"
    public static let reportKey = "report"
    public static let certificateKey = "certificate"
    /// The last hand-over of the organisation's certificate (in ``organizationStore``).
    public static let handoverKey = "handover"

    public static func policyStore(group: String) -> String { policyStorePrefix + group }
    public static func statusStore(machine: String) -> String { statusStorePrefix + machine }
    /// Whether `store` is a machine's status store (`fleet.status.*`), compared by bytes.
    public static func isStatusStore(_ store: String) -> Bool { store.utf8.starts(with: statusStorePrefix.utf8) }
    public static func machineToken(_ machine: String) -> String { machineTokenPrefix + machine }

    /// The machine id a token's name carries, or nil for a token that is not a machine's.
    public static func machine(ofToken name: String) -> String? {
        name.hasPrefix(machineTokenPrefix) ? String(name.dropFirst(machineTokenPrefix.count)) : nil
    }

    /// Whether `name` may name a group or a machine: 1 to 64 of `a-z A-Z 0-9 . _ -` (a store's name is built from it).
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x2E || b == 0x5F || b == 0x2D
        }
    }
}
