/// A machine-readable reason in an error answer's body (`{"error": "…", "code": "…"}`), for the
/// refusals a client acts on differently from the rest; the words in `error` are for people and
/// may change.
///
/// ```swift
/// if status == 503, body.code == UbiquityWireErrorCode.notApplied.rawValue { /* retry as is */ }
/// ```
public enum UbiquityWireErrorCode: String, Sendable, Hashable, CaseIterable {
    /// A 503 to a commit that the server is sure was not applied and never will be (the database
    /// did not take it within its deadline; proposal 0012). Other 503s to a commit promise less:
    /// a commit may have been applied if the database failed during its final step.
    case notApplied = "not-applied"
}
