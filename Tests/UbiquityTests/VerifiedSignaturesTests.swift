import Foundation
import Testing
import TestSupport
import UbiquityFleet
import X509

/// The proofs an agent process shares among the machines it manages (`VerifiedSignatures`): a
/// declaration's signature is checked once for all of them, a proof never answers where the
/// check itself would refuse, and what is kept is bounded.
@Suite("Signatures proven once for the machines of one agent process")
struct VerifiedSignaturesTests {
    /// A declaration signed by the organisation's signer (openssl's certificates, 30 days).
    struct Signed {
        let keys: FleetKeys
        let pinned: Certificate
        let signer: Certificate
        let bytes: [UInt8]
        let stranger: [UInt8]

        init(revision: Int64 = 1) throws {
            keys = try FleetKeys()
            pinned = try DeclarationSignature.certificate(Array(try Data(contentsOf: URL(fileURLWithPath: keys.ca))))
            signer = try DeclarationSignature.certificate(Array(try Data(contentsOf: URL(fileURLWithPath: keys.signer))))
            let content = Declaration(organization: "acme", group: "desktops", revision: revision, issued: Date(), profiles: []).content()
            func sign(_ cert: String, _ key: String) throws -> [UInt8] {
                let certificate = try DeclarationSignature.certificate(Array(try Data(contentsOf: URL(fileURLWithPath: cert))))
                let privateKey = try Certificate.PrivateKey(pemEncoded: try String(contentsOfFile: key, encoding: .utf8))
                return try DeclarationSignature.sign(content, certificate: certificate, key: privateKey)
            }
            bytes = try sign(keys.signer, keys.signerKey)
            stranger = try sign(keys.strangerSigner, keys.strangerKey)
        }
    }

    @Test("a declaration proven once is answered from the proof, with the content the check found", .requires(.openssl))
    func provenOnce() async throws {
        let signed = try Signed(revision: 7)
        let proofs = VerifiedSignatures()
        let now = Date()
        let key = VerifiedSignatures.key(signed.bytes, pinned: signed.pinned, what: "declaration")
        let declaration = try await DeclarationSignature.verify(signed.bytes, pinned: signed.pinned, now: now, proofs: proofs)
        #expect(declaration.revision == 7)
        let proven = try #require(proofs.content(for: key, now: now.addingTimeInterval(1)))
        #expect(try Declaration(bytes: proven) == declaration)
        #expect(try await DeclarationSignature.verify(signed.bytes, pinned: signed.pinned, now: now.addingTimeInterval(1), proofs: proofs) == declaration)
        #expect(proofs.count.proofs == 1 && proofs.count.bytes == proven.count)
        // Another kind of document: not this proof.
        #expect(proofs.content(for: VerifiedSignatures.key(signed.bytes, pinned: signed.pinned, what: "hand-over"), now: now) == nil)
    }

    @Test("a proof answers only within the signer's validity and a minute after it was made; the check then refuses as before",
          .requires(.openssl))
    func boundedByValidity() async throws {
        let signed = try Signed()
        let proofs = VerifiedSignatures()
        let now = Date()
        _ = try await DeclarationSignature.verify(signed.bytes, pinned: signed.pinned, now: now, proofs: proofs)
        let key = VerifiedSignatures.key(signed.bytes, pinned: signed.pinned, what: "declaration")
        #expect(proofs.content(for: key, now: now.addingTimeInterval(VerifiedSignatures.lifetime)) != nil)
        #expect(proofs.content(for: key, now: now.addingTimeInterval(VerifiedSignatures.lifetime + 1)) == nil)
        #expect(proofs.content(for: key, now: now.addingTimeInterval(-1)) == nil)
        // Past the signer's expiry (30 days): no proof answers, and the check refuses.
        let expired = signed.signer.notValidAfter.addingTimeInterval(1)
        #expect(proofs.content(for: key, now: expired) == nil)
        await #expect(throws: FleetError.self) { try await DeclarationSignature.verify(signed.bytes, pinned: signed.pinned, now: expired, proofs: proofs) }
        // A proof past its time is dropped at the next proof.
        let other = try Signed()
        _ = try await DeclarationSignature.verify(other.bytes, pinned: other.pinned, now: now.addingTimeInterval(VerifiedSignatures.lifetime + 1), proofs: proofs)
        #expect(proofs.count.proofs == 1)
    }

    @Test("a refusal is not remembered, and a byte changed after a proof is checked again and refused", .requires(.openssl))
    func refusalsNotKept() async throws {
        let signed = try Signed()
        let proofs = VerifiedSignatures()
        let now = Date()
        await #expect(throws: FleetError.self) { try await DeclarationSignature.verify(signed.stranger, pinned: signed.pinned, now: now, proofs: proofs) }
        #expect(proofs.count.proofs == 0)
        _ = try await DeclarationSignature.verify(signed.bytes, pinned: signed.pinned, now: now, proofs: proofs)
        var altered = signed.bytes
        altered[altered.count - 1] ^= 1
        await #expect(throws: FleetError.self) { try await DeclarationSignature.verify(altered, pinned: signed.pinned, now: now, proofs: proofs) }
        #expect(proofs.count.proofs == 1)
    }

    @Test("at most `capacity` proofs and `maximumBytes` of content are kept, the oldest going first", .requires(.openssl))
    func capacity() throws {
        let memo = VerifiedSignatures()
        let now = Date()
        let pinned = try Signed().pinned
        let keys = (0...VerifiedSignatures.capacity).map { VerifiedSignatures.key([UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)], pinned: pinned, what: "declaration") }
        for (i, key) in keys.enumerated() {
            memo.remember([UInt8(truncatingIfNeeded: i)], for: key, from: .distantPast, until: .distantFuture, now: now)
        }
        #expect(memo.content(for: keys[0], now: now) == nil)
        for (i, key) in keys.enumerated().dropFirst() { #expect(memo.content(for: key, now: now) == [UInt8(truncatingIfNeeded: i)]) }
        #expect(memo.count.proofs == VerifiedSignatures.capacity)
        // Large contents: the bytes bound lets the oldest go first.
        let large = [UInt8](repeating: 7, count: VerifiedSignatures.maximumBytes / 3)
        for key in keys.prefix(4) { memo.remember(large, for: key, from: .distantPast, until: .distantFuture, now: now) }
        #expect(memo.content(for: keys[0], now: now) == nil)
        #expect(memo.content(for: keys[3], now: now) == large)
        #expect(memo.count.bytes <= VerifiedSignatures.maximumBytes)
    }
}
