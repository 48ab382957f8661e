#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Tracing
import UbiquityProtocol
import HTTPMessages
import UbiquityBackend
import PropertyList

// Commits: the body checked against the protocol's rules (once, here), then the backend's transaction.
extension UbiquityService {
    // MARK: Commits

    /// A commit's body checked against the protocol's rules, or the answer that refuses it.
    enum ValidatedCommit {
        case changes([CheckedChange])
        case refused(ServerResponse)
    }

    /// Checks a commit's body: the store's name, the size, the JSON, the number of changes, keys
    /// that appear once, bases that are not negative, keys without control characters, values
    /// that are binary property lists within the limits, and the total (refused before the rest
    /// is decoded).
    static func validated(_ request: ServerRequest, store: String) -> ValidatedCommit {
        guard UbiquityLimits.isValidStoreIdentifier(store) else { return .refused(Self.badStore(store)) }
        guard request.body.count <= Self.maximumBody else { return .refused(Self.error(413, "the request is larger than \(Self.maximumBody) bytes")) }
        let commit: UbiquityCommitRequest
        if let usual = WireJSON.commitRequest(request.body) {
            commit = usual
        } else {
            do { commit = try JSONDecoder().decode(UbiquityCommitRequest.self, from: Data(request.body)) } catch {
                return .refused(Self.error(400, "the body is not a commit: \(Self.describe(error))"))
            }
        }
        guard !commit.changes.isEmpty else { return .refused(Self.error(400, "a commit needs at least one change")) }
        guard commit.changes.count <= Self.maximumChanges else {
            return .refused(Self.error(400, "a commit holds at most \(Self.maximumChanges) changes; this one has \(commit.changes.count)"))
        }
        var seen = Set<LiteralString>()
        var checked: [CheckedChange] = []
        // The values' sizes so far: a commit whose values alone exceed a
        // store's total is refused before the rest is decoded.
        var total = 0
        // One change (the usual commit) cannot repeat a key: no set is made for it.
        let single = commit.changes.count == 1
        for change in commit.changes {
            guard single || seen.insert(change.key).inserted else { return .refused(Self.error(400, "the key \"\(change.key)\" appears twice in the commit")) }
            guard change.base >= 0 else { return .refused(Self.error(400, "the base revision of \"\(change.key)\" is negative")) }
            if let c = change.key.unicodeScalars.first(where: UbiquityLimits.isControl) {
                return .refused(Self.error(400, "the key \"\(change.key)\" holds the control character U+\(String(c.value, radix: 16, uppercase: true)); keys are text without control characters"))
            }
            var bytes: [UInt8]? = nil
            if let text = change.value {
                switch UbiquityWireValue.decodeChecked(text) {
                case .failure(.malformed(let why)):
                    return .refused(Self.error(400, "the value of \"\(change.key)\" is not base64 of a binary property list: \(why)"))
                case .failure(.tooLarge(let why)):
                    return .refused(Self.error(413, "the value of \"\(change.key)\" is refused: \(why)"))
                case .success(let value):
                    // Encoded once: the stored bytes, whose length is the size the limits count.
                    let encoded = value.encodedBinary
                    total += encoded.count
                    guard total <= UbiquityLimits.maximumTotalBytes + UbiquityLimits.maximumValueBytes else {
                        return .refused(Self.error(413, "the commit's values total more than \(UbiquityLimits.maximumTotalBytes) bytes, more than a store holds"))
                    }
                    bytes = encoded
                }
            }
            checked.append(CheckedChange(key: change.key, base: change.base, bytes: bytes))
        }
        return .changes(checked)
    }

    func commit(_ request: ServerRequest, account: UbiquityAccountInfo, store: String, tokenHash: [UInt8]) async -> ServerResponse {
        let checked: [CheckedChange]
        switch Self.validated(request, store: store) {
        case .changes(let changes): checked = changes
        case .refused(let answer):
            ServerMetrics.invalidCommit()
            return answer
        }
        // The token was valid when the head arrived; the body may have taken long: the backend
        // checks it again in the transaction that applies the commit.
        let hash: [UInt8]? = tokenHash.isEmpty ? nil : tokenHash
        let stamp = hub.stamp(account: account.id, store: store)
        let outcome: CommitOutcome
        let started = ContinuousClock.now
        do {
            if ServerTracing.isOn {
                outcome = try await withSpan("database commit") { span in
                    span.attributes["ubiquity.store"] = store
                    span.attributes["ubiquity.changes"] = checked.count
                    return try await backend.commit(account: account.id, store: store, changes: checked, tokenHash: hash)
                }
            } else {
                outcome = try await backend.commit(account: account.id, store: store, changes: checked, tokenHash: hash)
            }
        } catch {
            ServerMetrics.commit(outcome: "unavailable", duration: .now - started)
            return unavailable(error)
        }
        if outcome.tokenRevoked {
            if let hash { tokens.forget(hash) }
            ServerMetrics.commit(outcome: "unauthorized", duration: .now - started)
            return Self.unauthorized("the token is not valid")
        }
        let conflicts = outcome.response.results.filter { $0.status == .conflict }.count
        ServerMetrics.conflicts(conflicts)
        if let refusal = outcome.refusal { ServerMetrics.quotaRefusal(refusal.quota ?? "other") }
        ServerMetrics.commit(outcome: outcome.refusal != nil ? "quota" : outcome.applied.isEmpty && conflicts > 0 ? "conflict" : "applied",
                             duration: .now - started)
        if !outcome.applied.isEmpty {
            fleet.applied(outcome.applied, store: store, organization: account.name, token: account.token)
            announce(outcome, account: account, store: store, since: stamp)
        }
        return Self.json(outcome.response.refusal == nil ? 200 : 422, outcome.response)
    }

    /// Tells the store's watchers of an applied commit (the answer they get, encoded once).
    func announce(_ outcome: CommitOutcome, account: UbiquityAccountInfo, store: String, since stamp: ChangeHub.Stamp) {
        let revision = outcome.response.revision
        hub.published(account: account.id, store: store, revision: revision, since: stamp) {
            let answer = Self.json(200, UbiquityChangesResponse(revision: revision, complete: false, entries: outcome.applied)).body
            return ChangeHub.Commit(store: store, revision: revision, encoded: answer)
        }
    }
}
