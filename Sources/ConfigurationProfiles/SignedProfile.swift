import PropertyList

/// The content of a CMS `SignedData` (PKCS #7) wrapping, as Apple's tools and
/// MDMs sign profiles: DER or BER (definite and indefinite lengths, an
/// octet string in segments), or the same in PEM.
///
/// The signature itself is not checked here (see ``ProfileSignature``).
///
/// ```swift
/// if let inner = try SignedProfile.content(of: bytes) { … }   // nil: not signed
/// ```
package enum SignedProfile {
    /// The BER/DER bytes of the signature wrapping when `bytes` are signed
    /// (PEM decoded, leading white space dropped); nil when they are not.
    package static func encoded(_ bytes: [UInt8]) throws(ProfileError) -> [UInt8]? {
        var der = bytes[...]
        while let first = der.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D { der = der.dropFirst() }
        if der.starts(with: Array("-----BEGIN".utf8)) { return try pem(Array(der)) }
        return der.first == 0x30 ? Array(der) : nil
    }

    /// The encapsulated content when `bytes` are a CMS SignedData; nil when they are not signed.
    package static func content(of bytes: [UInt8]) throws(ProfileError) -> [UInt8]? {
        guard let der = try encoded(bytes) else { return nil }
        let top = try BERElement.parse(der)
        // ContentInfo ::= SEQUENCE { contentType OID, content [0] EXPLICIT SignedData }
        guard top.tag == 0x30, top.children.count >= 2, top.children[0].tag == 0x06,
              top.children[0].value == signedDataOID else {
            throw ProfileError("", "a DER file that is not a CMS SignedData (PKCS #7) signed profile")
        }
        let explicit = top.children[1]
        guard explicit.tag == 0xA0, let signedData = explicit.children.first, signedData.tag == 0x30, signedData.children.count >= 3 else {
            throw ProfileError("signature", "the SignedData structure is not as CMS defines it")
        }
        // SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo, … }
        let encapsulated = signedData.children[2]
        guard encapsulated.tag == 0x30, encapsulated.children.count == 2, encapsulated.children[1].tag == 0xA0,
              let octets = encapsulated.children[1].children.first else {
            throw ProfileError("signature", "the signed profile carries no content (a detached signature)")
        }
        return try octets.octetString()
    }

    /// `der` re-encoded in the algorithm spellings swift-certificates
    /// checks (RFC 5754), without changing what is signed: a signer's
    /// `signatureAlgorithm` that says only `rsaEncryption` (as Apple's and
    /// OpenSSL's CMS signers write it) becomes the algorithm its digest
    /// names (sha256WithRSAEncryption, …), and SHA-2 digest identifiers lose
    /// their NULL parameters. Neither field is covered by the signature (it
    /// covers the content or the signed attributes, which are kept byte for
    /// byte). Returned unchanged when it is not a SignedData this understands.
    package static func normalizedForVerification(_ der: [UInt8]) -> [UInt8] {
        guard var top = try? BERElement.parse(der), top.children.count >= 2, top.children[1].tag == 0xA0,
              var signedData = top.children[1].children.first, signedData.tag == 0x30, signedData.children.count >= 4,
              var signerInfos = signedData.children.last, signerInfos.tag == 0x31 else { return der }
        // digestAlgorithms SET
        if signedData.children[1].tag == 0x31 {
            signedData.children[1].children = signedData.children[1].children.map(withoutNullParameters)
        }
        for i in signerInfos.children.indices where signerInfos.children[i].tag == 0x30 && signerInfos.children[i].children.count >= 5 {
            // SignerInfo ::= SEQUENCE { version, sid, digestAlgorithm, [0] signedAttrs OPTIONAL, signatureAlgorithm, signature, … }
            var signer = signerInfos.children[i]
            let digestOID = signer.children[2].children.first?.value ?? []
            signer.children[2] = withoutNullParameters(signer.children[2])
            if let a = signer.children.indices.dropFirst(3).first(where: { signer.children[$0].tag == 0x30 }),
               let oid = signer.children[a].children.first, oid.tag == 0x06, oid.value == rsaEncryptionOID {
                let last: UInt8?
                switch digestOID {
                case sha1OID: last = 0x05
                case sha2OIDPrefix + [0x01]: last = 0x0B
                case sha2OIDPrefix + [0x02]: last = 0x0C
                case sha2OIDPrefix + [0x03]: last = 0x0D
                default: last = nil
                }
                if let last { signer.children[a].children[0].value[rsaEncryptionOID.count - 1] = last }
            }
            signerInfos.children[i] = signer
        }
        signedData.children[signedData.children.count - 1] = signerInfos
        top.children[1].children[0] = signedData
        return top.encoded()
    }

    /// A SHA-2 AlgorithmIdentifier written with absent parameters (RFC 5754 § 2); others unchanged.
    static func withoutNullParameters(_ algorithm: BERElement) -> BERElement {
        guard algorithm.tag == 0x30, algorithm.children.count == 2, algorithm.children[1].tag == 0x05,
              let oid = algorithm.children.first?.value, oid.starts(with: sha2OIDPrefix) else { return algorithm }
        var out = algorithm
        out.children.removeLast()
        return out
    }

    /// 1.3.14.3.2.26 (SHA-1).
    static let sha1OID: [UInt8] = [0x2B, 0x0E, 0x03, 0x02, 0x1A]
    /// 2.16.840.1.101.3.4.2 (the SHA-2 digests: .1 SHA-256, .2 SHA-384, .3 SHA-512).
    static let sha2OIDPrefix: [UInt8] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02]

    /// 1.2.840.113549.1.1.1 (rsaEncryption).
    static let rsaEncryptionOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]

    /// 1.2.840.113549.1.7.2 (signedData).
    static let signedDataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]

    /// The DER inside a PEM file (`-----BEGIN PKCS7-----` or `CMS`).
    static func pem(_ bytes: [UInt8]) throws(ProfileError) -> [UInt8] {
        let lines = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
        let body = lines.drop { !$0.hasPrefix("-----BEGIN") }.dropFirst().prefix { !$0.hasPrefix("-----END") }
        var text = body.joined()
        let der = text.withUTF8 { Base64.decode(UnsafeRawBufferPointer($0)) }
        guard !der.isEmpty else { throw ProfileError("", "a PEM file without base64 content") }
        return der
    }
}
