#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ConfigurationProfiles
import ProfileSignatures
package import PropertyList
import SwiftASN1
import X509

/// The machine's side of a fleet, without the network: verifies a group's declaration against
/// the pinned certificate, installs and removes its profiles through ``ProfileStore`` (the code
/// behind `profiles install` and `remove`), and keeps ``AgentState``. The `ubiquity agent`
/// command feeds it what the server's streams deliver and sends the reports it makes.
///
/// ```swift
/// let agent = try FleetAgent(credential: credential, files: AgentFiles())
/// let changed = await agent.receive(group: "desktops", signed: bytes)   // applied or refused; state saved
/// let report = agent.report()
/// ```
package final class FleetAgent: @unchecked Sendable {
    package private(set) var credential: AgentCredential
    package private(set) var state: AgentState
    var pinned: Certificate
    /// The machine's files: its enrolment, its state, and the tree its profiles go into.
    package let files: AgentFiles
    let store: ProfileStore

    /// Signatures proven for the machines of this process (nil: this agent keeps none).
    let proofs: VerifiedSignatures?

    /// `proofs`: shared by the agents of one process that manages several machines, so that a
    /// declaration they all receive is checked once.
    package init(credential: AgentCredential, files: AgentFiles, proofs: VerifiedSignatures? = nil) throws(FleetError) {
        self.credential = credential
        self.files = files
        self.proofs = proofs
        store = ProfileStore(managedDirectory: files.managedDirectory)
        do { pinned = try Certificate(derEncoded: credential.certificate) } catch {
            throw FleetError(.malformed, "the pinned certificate cannot be read: \(error)")
        }
        state = try AgentState.load(from: files)
    }

    /// The status report: the state, with the fingerprint of the certificate pinned now.
    package func report() -> PropertyList {
        state.report(machine: credential.machine, host: credential.host, pinned: DeclarationSignature.fingerprint(of: credential.certificate))
    }

    /// Takes back the profiles of groups the machine no longer follows (enrolled again with other
    /// groups); whether anything changed.
    package func leaveOtherGroups() throws(FleetError) -> Bool {
        let gone = state.groups.keys.filter { !credential.groups.contains($0) }
        guard !gone.isEmpty else { return false }
        let remove = gone.flatMap { state.groups[$0]?.profiles ?? [] }
        try change(installing: [], removing: remove) { state, _ in for g in gone { state.groups[g] = nil } }
        return true
    }

    /// A group's declaration as the server delivered it (`nil`: the server holds none). Applied
    /// when it is the organisation's, for this group, and newer than the one applied; otherwise
    /// refused and noted for the report. Whether the report changed.
    package func receive(group: String, signed: [UInt8]?) async -> Bool {
        guard credential.groups.contains(group), let signed else { return false }
        let declaration: Declaration
        do throws(FleetError) {
            declaration = try await DeclarationSignature.verify(signed, pinned: pinned, proofs: proofs)
            guard declaration.organization == credential.organization else {
                throw FleetError(.misdirected, "the declaration is for the organisation \(declaration.organization), not \(credential.organization)")
            }
            guard declaration.group == group else {
                throw FleetError(.misdirected, "the declaration of group \(declaration.group) was delivered as group \(group)'s")
            }
            let applied = state.groups[group]?.revision ?? 0
            if declaration.revision == applied { return false }   // the one in force, delivered again
            guard declaration.revision > applied else {
                throw FleetError(.replayed, "revision \(declaration.revision) of group \(group) is older than revision \(applied), which is applied")
            }
        } catch {
            return noteRefusal(error, group: group)
        }
        return await apply(declaration, group: group)
    }

    /// The organisation's hand-over of its certificate, as the server delivered it: taken when
    /// it is signed under the pinned certificate, for this organisation, and newer than the last
    /// one taken; then the new certificate is pinned (the credential saved) and declarations must
    /// be signed under it. Otherwise refused and noted for the report. Whether anything changed.
    package func receive(handover signed: [UInt8]?) async -> Bool {
        guard let signed else { return false }
        let handover: Handover
        let next: Certificate
        do throws(FleetError) {
            handover = try Handover(bytes: try await DeclarationSignature.verifiedContent(signed, pinned: pinned, what: "hand-over", proofs: proofs))
            guard handover.organization == credential.organization else {
                throw FleetError(.misdirected, "the hand-over is for the organisation \(handover.organization), not \(credential.organization)")
            }
            if handover.sequence == credential.handoverSequence { return false }
            guard handover.sequence > credential.handoverSequence else {
                throw FleetError(.replayed, "hand-over \(handover.sequence) is older than hand-over \(credential.handoverSequence), which was taken")
            }
            do { next = try Certificate(derEncoded: handover.certificate) } catch {
                throw FleetError(.malformed, "the hand-over's certificate cannot be read: \(error)")
            }
            var updated = credential
            updated.certificate = handover.certificate
            updated.handoverSequence = handover.sequence
            try updated.save(to: files)
            credential = updated
        } catch {
            if state.handoverRefusal == error.message { return false }
            state.handoverRefusal = error.message
            try? state.save(to: files)
            return true
        }
        pinned = next
        state.handoverRefusal = nil
        try? state.save(to: files)
        return true
    }

    func noteRefusal(_ error: FleetError, group: String) -> Bool {
        var entry = state.groups[group] ?? .notApplied
        if entry.refusal == error.message { return false }
        entry.refusal = error.message
        entry.refusalKind = error.kind.rawValue
        state.groups[group] = entry
        try? state.save(to: files)
        return true
    }

    /// Installs the declaration's profiles and removes the group's others, in one change.
    func apply(_ declaration: Declaration, group: String) async -> Bool {
        var outcomes: [String: String] = [:]
        var installing: [ProfileStore.BatchProfile] = []
        // Profiles installed by hand are left out here, so that they are never among the
        // identifiers the state notes as being installed (`pending`, counted as the agent's after
        // a crash). One installed by hand after this read is caught by the store, under its lock
        // (`change`). An index that cannot be read fails that change, which reports it.
        let handInstalled = (try? store.index())?.systemIdentifiers(except: state.owned) ?? []
        let otherGroups = state.groups.filter { $0.key != group }
        for (i, bytes) in declaration.profiles.enumerated() {
            let profile: ConfigurationProfile
            do { profile = try ConfigurationProfile(bytes: bytes) } catch {
                outcomes["profile \(i + 1)"] = "failed: \(error)"
                continue
            }
            let id = profile.identifier
            if profile.scope != .system { outcomes[id] = "failed: a User profile; a fleet installs System profiles"; continue }
            if handInstalled.contains(id) { outcomes[id] = Self.leftAloneOutcome; continue }
            if let other = otherGroups.first(where: { $0.value.profiles.contains(id) })?.key {
                outcomes[id] = "failed: group \(other) declares it too; it stays as that group installed it"
                continue
            }
            if installing.contains(where: { $0.profile.identifier == id }) { outcomes[id] = "failed: declared twice"; continue }
            let signature = await ProfileSignatureCheck.check(bytes, trustFiles: ProfileSignatureCheck.defaultTrustFiles(root: files.root))
            guard let status = signature.status else {
                if case .invalid(let why) = signature { outcomes[id] = "failed: \(why)" }
                continue
            }
            installing.append(.init(profile: profile, bytes: bytes, signature: status))
        }
        let previous = state.groups[group]?.profiles ?? []
        let keep = Set(installing.map(\.profile.identifier))
        let removing = previous.filter { !keep.contains($0) }
        do {
            try change(installing: installing, removing: removing) { state, leftAlone in
                // Installed by hand since the index was read above: left as it is by the store.
                let installed = installing.map(\.profile.identifier).filter { !leftAlone.contains($0) }
                var said = outcomes
                for id in leftAlone { said[id] = Self.leftAloneOutcome }
                state.groups[group] = AgentState.Group(revision: declaration.revision, applied: Date(), profiles: installed,
                                                       outcomes: said.merging(installed.map { ($0, "installed") }) { a, _ in a },
                                                       refusal: nil, refusalKind: nil)
            }
        } catch {
            var failed = outcomes
            for item in installing { failed[item.profile.identifier] = "failed: \(error)" }
            var entry = state.groups[group] ?? .notApplied
            entry.outcomes = failed
            entry.refusal = "revision \(declaration.revision) could not be applied: \(error)"
            entry.refusalKind = FleetError.Kind.apply.rawValue
            state.groups[group] = entry
            try? state.save(to: files)
        }
        return true
    }

    /// What a machine reports of a declared profile that was installed by hand.
    static let leftAloneOutcome = "failed: installed by hand (profiles install); the agent leaves it alone"

    /// Notes the intent, changes the profiles in one step, then records the result; `record` is
    /// given the identifiers left alone, installed by hand.
    func change(installing: [ProfileStore.BatchProfile], removing: [String],
                _ record: (inout AgentState, _ leftAlone: Set<String>) -> Void) throws(FleetError) {
        // What the agent installed before this change (its pending included: a change a crash
        // interrupted may have installed them), not what this change is about to install.
        let owned = state.owned
        state.pending = installing.map(\.profile.identifier)
        try state.save(to: files)
        let result: ProfileStore.BatchResult
        do {
            result = try store.apply(installing: installing, removing: removing, owned: owned)
        } catch {
            state.pending = []
            try? state.save(to: files)
            throw FleetError(.apply, "\(error)")
        }
        record(&state, Set(result.leftAlone))
        state.pending = []
        try state.save(to: files)
    }
}
