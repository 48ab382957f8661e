#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import UbiquityProtocol
import HTTPMessages
import UbiquityBackend
import PropertyList

// A fleet (proposal 0018): an organisation is an account; its enrolment secret and its machines'
// credentials are tokens of it, each allowed only its own part of the protocol.
extension UbiquityService {
    /// Why `token` may not make the request `kind` on `store`, or nil when it may.
    ///
    /// - The enrolment secret only enrols.
    /// - A machine reads its organisation's declarations and certificate, and writes its own
    ///   status: a report for another machine is refused (403), as is any other store.
    /// - Enrolment needs the enrolment secret.
    /// - A machine's status store is written by that machine alone: it does not count toward the
    ///   account's store quota (``AccountQuota/countsStore(_:)``), so no other token may make one.
    /// - Any other token (the administrator's, an ordinary account's) is unchanged.
    static func fleetRefusal(_ kind: Route.Kind, store: String, token: String?) -> ServerResponse? {
        let names = UbiquityFleetNames.self
        if token == names.enrolmentToken {
            return kind == .enroll ? nil : error(403, "the enrolment secret only enrols machines (POST /v1/fleet/enroll)")
        }
        if kind == .enroll {
            return error(403, "only the organisation's enrolment secret enrols machines")
        }
        guard let token, let machine = names.machine(ofToken: token) else {
            if kind == .commit, names.isStatusStore(store) {
                return error(403, "a machine's status store (\(names.statusStorePrefix)…) is written by that machine's credential alone")
            }
            return nil
        }
        switch kind {
        case .health, .ready, .account, .enroll: return nil
        case .changes, .events, .storesEvents:
            if store.hasPrefix(names.policyStorePrefix) || store == names.organizationStore { return nil }
            return error(403, "a machine's credential reads its organisation's declarations, not the store \"\(store)\"")
        case .commit:
            if store == names.statusStore(machine: machine) { return nil }
            return error(403, "a machine's credential writes its own status (\(names.statusStore(machine: machine))), not the store \"\(store)\"")
        }
    }

    /// `POST /v1/fleet/enroll`: a credential for the machine (a new one replaces the machine's
    /// old one, which is refused from then on), its entry in the organisation's machines, and the
    /// organisation's signing certificate for the machine to pin.
    func enroll(_ request: ServerRequest, account: UbiquityAccountInfo) async -> ServerResponse {
        guard request.body.count <= 64 << 10 else { return Self.error(413, "an enrolment is at most 64 KB") }
        let asked: UbiquityEnrollRequest
        do { asked = try JSONDecoder().decode(UbiquityEnrollRequest.self, from: Data(request.body)) } catch {
            return Self.error(400, "the body is not an enrolment: \(Self.describe(error))")
        }
        let names = UbiquityFleetNames.self
        guard names.isValidName(asked.machine) else {
            return Self.error(400, "the machine id must be 1 to 64 letters, digits, '.', '_' or '-'")
        }
        guard !asked.host.isEmpty, asked.host.utf8.count <= 255, !asked.host.unicodeScalars.contains(where: UbiquityLimits.isControl) else {
            return Self.error(400, "the host name must be 1 to 255 bytes without control characters")
        }
        guard asked.groups.count <= 64, Set(asked.groups).count == asked.groups.count else {
            return Self.error(400, "a machine follows at most 64 groups, each named once")
        }
        if let bad = asked.groups.first(where: { !names.isValidName($0) }) {
            return Self.error(400, "the group \"\(bad)\" must be 1 to 64 letters, digits, '.', '_' or '-'")
        }
        do {
            let organization = try await backend.changes(account: account.id, store: names.organizationStore, after: 0)
            guard let entry = organization.entries.first(where: { $0.key == names.certificateKey }), let value = entry.value,
                  case .data(let certificate)? = UbiquityWireValue.decode(value)?.value else {
                return Self.error(409, "the organisation \(account.name) has no signing certificate (ubiquity org create --signing-cert)")
            }
            let token = Self.newToken(), hash = Self.hash(token: token)
            let tokenName = names.machineToken(asked.machine)
            do {
                try await backend.addToken(account: account.name, tokenName: tokenName, tokenHash: hash)
            } catch let refusal as BackendError where refusal.status == 409 {
                try await backend.replaceToken(account: account.name, tokenName: tokenName, tokenHash: hash)
            }
            let machineEntry: PropertyList = .dictionary([
                "Host": .string(asked.host), "Groups": .array(asked.groups.map { .string($0) }), "Enrolled": .date(Date()),
            ])
            // In the machine's own status store (not one store of all machines, which would hold at most 1,024).
            try await record(machineEntry, key: names.enrolmentKey, store: names.statusStore(machine: asked.machine), account: account)
            let answer = UbiquityEnrollResponse(organization: account.name, token: token,
                                                certificate: Data(certificate).base64EncodedString())
            return Self.json(200, answer)
        } catch {
            return unavailable(error)
        }
    }

    /// Sets `key` of `store` to `value` as the server itself (no token), whatever its revision
    /// (read, then compared and set; retried when another commit came between), and wakes its watchers.
    func record(_ value: PropertyList, key: String, store: String, account: UbiquityAccountInfo) async throws {
        for _ in 0..<8 {
            let current = try await backend.changes(account: account.id, store: store, after: 0)
            let base = current.entries.first { $0.key == key }?.revision ?? 0
            let stamp = hub.stamp(account: account.id, store: store)
            let outcome = try await backend.commit(account: account.id, store: store,
                                                   changes: [CheckedChange(key: key, base: base, bytes: value.encodedBinary)])
            if let refusal = outcome.refusal { throw BackendError(status: 422, refusal.message) }
            guard !outcome.applied.isEmpty else { continue }
            announce(outcome, account: account, store: store, since: stamp)
            return
        }
        throw BackendError(status: 409, "the store \(store) kept changing; try again")
    }
}
