package import ConfigurationProfiles
import OpenDefaults
import PlatformIO
import SwiftASN1
@_spi(CMS) import X509

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Checks a signed profile's CMS signature with swift-certificates: that
/// it matches the content (else the profile is refused), and whether the
/// signer's certificate chains to a trusted root (the system's CA bundle and
/// the administrator's trust folder).
///
/// ```swift
/// switch await ProfileSignatureCheck.check(bytes, trustFiles: ProfileSignatureCheck.defaultTrustFiles()) {
/// case .signed(let status): print(status.label)      // Verified / Unverified
/// case .unsigned: print("Unsigned")
/// case .invalid(let why): print("refused: \(why)")
/// }
/// ```
package enum ProfileSignatureCheck {
    package enum Outcome: Sendable, Hashable {
        case unsigned
        case signed(ProfileSignatureStatus)
        /// The signature does not match the content, or is not a signature at all.
        case invalid(String)

        /// The status to record, or nil when the profile must be refused.
        package var status: ProfileSignatureStatus? {
            switch self {
            case .unsigned: .unsigned
            case .signed(let s): s
            case .invalid: nil
            }
        }
    }

    /// The system's CA bundles, then every `.pem` or `.crt` file in `<system root>/etc/opendefaults/profile-trust`.
    package static func defaultTrustFiles() -> [String] {
        let root = PreferencesLayout.systemRoot
        var files = ["/etc/ssl/certs/ca-certificates.crt"].filter(FileStatus.exists)
        let folder = root + "/etc/opendefaults/profile-trust"
        for name in (FileIO.directoryEntries(folder) ?? []).sorted() where name.hasSuffix(".pem") || name.hasSuffix(".crt") {
            files.append(folder + "/" + name)
        }
        return files
    }

    /// The certificates in PEM files (bundles of several are read whole); unreadable ones are skipped.
    static func certificates(in files: [String]) -> [Certificate] {
        var out: [Certificate] = []
        for file in files {
            guard let bytes = try? FileIO.read(file, limit: 16 << 20),
                  let documents = try? PEMDocument.parseMultiple(pemString: String(decoding: bytes, as: UTF8.self)) else { continue }
            for doc in documents where doc.discriminator == "CERTIFICATE" {
                if let cert = try? Certificate(derEncoded: doc.derBytes) { out.append(cert) }
            }
        }
        return out
    }

    /// Why a signer is not trusted, in a line.
    static func reason(_ signer: Certificate, _ failures: [CertificateValidationResult.PolicyFailure], now: Date) -> String {
        if signer.notValidAfter < now { return "the signer's certificate expired on \(signer.notValidAfter.formatted(.iso8601))" }
        if signer.notValidBefore > now { return "the signer's certificate is not valid before \(signer.notValidBefore.formatted(.iso8601))" }
        guard let first = failures.first else { return "the signer's certificate does not chain to a trusted root" }
        let text = first.policyFailureReason.description
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// Checks `bytes` (a profile file as read).
    package static func check(_ bytes: [UInt8], trustFiles: [String], now: Date = Date()) async -> Outcome {
        let der: [UInt8]
        do {
            guard let encoded = try SignedProfile.encoded(bytes) else { return .unsigned }
            der = SignedProfile.normalizedForVerification(encoded)
        } catch {
            return .invalid(error.description)
        }
        let roots = CertificateStore(certificates(in: trustFiles))
        let result = await CMS.isValidAttachedSignature(signatureBytes: der, trustRoots: roots) {
            RFC5280Policy(validationTime: now)
        }
        switch result {
        case .success(let valid):
            return .signed(.verified(signer: valid.signer.subject.description))
        case .failure(.unableToValidateSigner(let failure)):
            return .signed(.unverified(signer: failure.signer.subject.description, reason: reason(failure.signer, failure.policyFailures, now: now)))
        case .failure(.invalidCMSBlock(let block)):
            return .invalid("the signature does not match the profile or is malformed: \(block.reason)")
        case .failure(let other):
            return .invalid("the signature cannot be checked: \(other)")
        }
    }
}
