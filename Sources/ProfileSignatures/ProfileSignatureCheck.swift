package import ConfigurationProfiles
import OpenDefaults
import PlatformIO
import SwiftASN1
@_spi(CMS) @_spi(FixedExpiryValidationTime) import X509

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

    /// The system's CA bundles, then every `.pem` or `.crt` file in `<root>/etc/opendefaults/profile-trust`
    /// (`root`: the system root by default; another machine's tree for an agent that manages several).
    package static func defaultTrustFiles(root: String = PreferencesLayout.systemRoot) -> [String] {
        var files = ["/etc/ssl/certs/ca-certificates.crt"].filter(FileStatus.exists)
        let folder = root + "/etc/opendefaults/profile-trust"
        // An anchor is trusted only when root (or the user running the tool) alone could have
        // put it there: owned so all the way from /, nothing on the way writable by others.
        for name in (FileIO.directoryEntries(folder) ?? []).sorted() where name.hasSuffix(".pem") || name.hasSuffix(".crt") {
            let file = folder + "/" + name
            if PathTrust.problem(with: file, owners: PathTrust.rootOrMe) == nil { files.append(file) }
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

    /// Why `signer`'s certificate may not sign a profile, or nil when it may: its key usage,
    /// when present, must include digitalSignature (or nonRepudiation); its extended key
    /// usage, when present, must include emailProtection, codeSigning, serverAuth (what MDM
    /// servers sign profiles with) or anyExtendedKeyUsage.
    static func signingRefusal(_ signer: Certificate) -> String? {
        do {
            if let usage = try signer.extensions.keyUsage, !usage.digitalSignature, !usage.nonRepudiation {
                return "the signer's certificate does not allow signing (its key usage has neither digitalSignature nor nonRepudiation)"
            }
            if let extended = try signer.extensions.extendedKeyUsage {
                let allowed: [ExtendedKeyUsage.Usage] = [.emailProtection, .codeSigning, .serverAuth, .any]
                if !extended.contains(where: { allowed.contains($0) }) {
                    return "the signer's certificate does not allow signing profiles (its extended key usage has none of emailProtection, codeSigning, serverAuth, anyExtendedKeyUsage)"
                }
            }
        } catch {
            return "the signer's certificate has malformed key usage extensions: \(error)"
        }
        return nil
    }

    /// Why a signer is not trusted, in a line.
    static func reason(_ signer: Certificate, _ failures: [CertificateValidationResult.PolicyFailure], now: Date) -> String {
        if signer.notValidAfter < now { return "the signer's certificate expired on \(signer.notValidAfter.formatted(.iso8601))" }
        if signer.notValidBefore > now { return "the signer's certificate is not valid before \(signer.notValidBefore.formatted(.iso8601))" }
        guard let first = failures.first else { return "the signer's certificate does not chain to a trusted root" }
        let text = first.policyFailureReason.description
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// Checks `bytes` (a profile file as read). `trustFiles` are looked for only when `bytes`
    /// are signed.
    package static func check(_ bytes: [UInt8], trustFiles: @autoclosure () -> [String], now: Date = Date()) async -> Outcome {
        let der: [UInt8]
        do {
            guard let encoded = try SignedProfile.encoded(bytes) else { return .unsigned }
            der = SignedProfile.normalizedForVerification(encoded)
        } catch {
            return .invalid(error.description)
        }
        let roots = CertificateStore(certificates(in: trustFiles()))
        let result = await CMS.isValidAttachedSignature(signatureBytes: der, trustRoots: roots) {
            RFC5280Policy(fixedExpiryValidationTime: now)
        }
        switch result {
        case .success(let valid):
            // A chain to a trusted root is not enough: the signer's own certificate must allow signing.
            if let why = signingRefusal(valid.signer) {
                return .signed(.unverified(signer: valid.signer.subject.description, reason: why))
            }
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
