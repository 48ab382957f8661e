#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
import ConfigurationProfiles
import Crypto
import PlatformIO
import SwiftASN1
@_spi(CMS) @_spi(FixedExpiryValidationTime) package import X509

/// A declaration signed by the organisation (CMS `SignedData` with the declaration inside, DER),
/// and checked by a machine against the certificate it pinned at enrolment.
///
/// The pinned certificate is the organisation's: its own key, or a certificate authority that
/// issues the administrators' signing certificates. A machine accepts a declaration only when
/// its signature matches its content and its signer is the pinned certificate or chains to it;
/// the server that carries declarations holds no key, so it can withhold a declaration but
/// never make one that a machine applies.
///
/// ```swift
/// let signed = try DeclarationSignature.sign(declaration.content(), certificate: cert, key: key)
/// let declaration = try await DeclarationSignature.verify(signed, pinned: cert)
/// ```
package enum DeclarationSignature {
    /// Signs `content` with `key`, whose certificate is `certificate` (`chain`: intermediates to carry).
    package static func sign(_ content: [UInt8], certificate: Certificate, key: Certificate.PrivateKey,
                             chain: [Certificate] = []) throws -> [UInt8] {
        try CMS.sign(content, additionalIntermediateCertificates: chain, certificate: certificate, privateKey: key,
                     signingTime: Date(), detached: false)
    }

    /// The declaration inside `signed`, once its signature is proven to be the pinned
    /// organisation's; refused as ``FleetError/Kind/tampered`` (the signature does not match)
    /// or ``FleetError/Kind/untrusted`` (a signer that does not chain to `pinned`).
    /// `proofs`: the proofs shared by the machines of one agent process (nil: none kept).
    package static func verify(_ signed: [UInt8], pinned: Certificate, now: Date = Date(),
                               proofs: VerifiedSignatures? = nil) async throws(FleetError) -> Declaration {
        try Declaration(bytes: try await verifiedContent(signed, pinned: pinned, what: "declaration", now: now, proofs: proofs))
    }

    /// The content of `signed` (a declaration, a hand-over), once its signature is proven to be
    /// under `pinned`; refused as for a declaration.
    package static func verifiedContent(_ signed: [UInt8], pinned: Certificate, what: String = "declaration",
                                        now: Date = Date(), proofs: VerifiedSignatures? = nil) async throws(FleetError) -> [UInt8] {
        // The content is taken out first, by the profiles' own reader, and handed to the check
        // as the data signed: swift-certificates then parses the CMS once (its attached-signature
        // entry point parses it a second time to find the content) and refuses the signature
        // unless the content it finds inside is byte for byte this one.
        // The machines one agent process manages check the same signed bytes once (VerifiedSignatures).
        let key = proofs == nil ? nil : VerifiedSignatures.key(signed, pinned: pinned, what: what)
        if let key, let proven = proofs?.content(for: key, now: now) { return proven }
        let content: [UInt8]?
        do { content = try SignedProfile.content(of: signed) } catch {
            throw FleetError(.tampered, "the \(what)'s signature wrapping is malformed: \(error)")
        }
        guard let inner = content else { throw FleetError(.tampered, "the \(what) is not signed") }
        let roots = CertificateStore([pinned])
        let result = await CMS.isValidSignature(dataBytes: inner, signatureBytes: signed, trustRoots: roots,
                                                allowAttachedContent: true) {
            RFC5280Policy(fixedExpiryValidationTime: now)
        }
        switch result {
        case .success(let valid):
            if let key {
                proofs?.remember(inner, for: key, from: max(valid.signer.notValidBefore, pinned.notValidBefore),
                                 until: min(valid.signer.notValidAfter, pinned.notValidAfter), now: now)
            }
            return inner
        case .failure(.unableToValidateSigner(let failure)):
            throw FleetError(.untrusted, "the \(what) is signed by \(failure.signer.subject), which is not the organisation's pinned certificate (\(pinned.subject)) nor issued by it")
        case .failure(.invalidCMSBlock(let block)):
            throw FleetError(.tampered, "the \(what)'s signature does not match its content: \(block.reason)")
        case .failure(let other):
            throw FleetError(.tampered, "the \(what)'s signature cannot be checked: \(other)")
        }
    }

    /// The certificate in a PEM or DER file's bytes (the first, for a PEM bundle).
    package static func certificate(_ bytes: [UInt8]) throws -> Certificate {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("-----BEGIN CERTIFICATE-----") {
            let documents = try PEMDocument.parseMultiple(pemString: text)
            guard let first = documents.first(where: { $0.discriminator == "CERTIFICATE" }) else {
                throw FleetError(.malformed, "no CERTIFICATE in the PEM file")
            }
            return try Certificate(derEncoded: first.derBytes)
        }
        return try Certificate(derEncoded: bytes)
    }

    /// Every certificate of a PEM text.
    package static func certificates(inPEM text: String) throws -> [Certificate] {
        try PEMDocument.parseMultiple(pemString: text).filter { $0.discriminator == "CERTIFICATE" }.map { try Certificate(derEncoded: $0.derBytes) }
    }

    /// The certificate's DER.
    package static func der(of certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// The SHA-256 of the certificate's DER, in lower-case hex: what an administrator compares.
    package static func fingerprint(of der: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in SHA256.hash(data: der) { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }
}
