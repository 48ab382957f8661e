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

/// An element of a BER/DER encoding, with its children when it is constructed.
struct BERElement {
    var tag: UInt8
    /// The contents of a primitive element.
    var value: [UInt8]
    var children: [BERElement]
    /// Where a primitive element's contents begin in the bytes parsed.
    var valueOffset = 0

    static let maximumDepth = 64
    static let maximumElements = 1_000_000

    /// Parses one element that must span `bytes`.
    static func parse(_ bytes: [UInt8]) throws(ProfileError) -> BERElement {
        var offset = 0, count = 0
        let e = try parse(bytes, &offset, end: bytes.count, depth: 0, count: &count)
        return e
    }

    private static func fail(_ offset: Int, _ why: String) -> ProfileError {
        ProfileError("signature", "byte \(offset): \(why)")
    }

    private static func parse(_ b: [UInt8], _ offset: inout Int, end: Int, depth: Int, count: inout Int) throws(ProfileError) -> BERElement {
        guard depth < maximumDepth else { throw fail(offset, "nested more than \(maximumDepth) levels") }
        count += 1
        guard count <= maximumElements else { throw fail(offset, "more than \(maximumElements) elements") }
        guard offset + 2 <= end else { throw fail(offset, "the encoding ends inside an element's header") }
        let tag = b[offset]
        guard tag & 0x1F != 0x1F else { throw fail(offset, "a multi-byte tag (not used by CMS)") }
        offset += 1
        let first = b[offset]
        offset += 1
        let constructed = tag & 0x20 != 0
        var length: Int? = nil
        if first < 0x80 {
            length = Int(first)
        } else if first > 0x80 {
            let n = Int(first & 0x7F)
            guard n <= 4, offset + n <= end else { throw fail(offset, "a length of \(n) bytes") }
            var l = 0
            for _ in 0..<n { l = l << 8 | Int(b[offset]); offset += 1 }
            length = l
        } else if !constructed {
            throw fail(offset, "an indefinite length on a primitive element")
        }
        if let length {
            guard length <= end - offset else { throw fail(offset, "an element of \(length) bytes where \(end - offset) remain") }
            let contentEnd = offset + length
            if !constructed {
                defer { offset = contentEnd }
                return BERElement(tag: tag, value: Array(b[offset..<contentEnd]), children: [], valueOffset: offset)
            }
            var children: [BERElement] = []
            while offset < contentEnd { children.append(try parse(b, &offset, end: contentEnd, depth: depth + 1, count: &count)) }
            return BERElement(tag: tag, value: [], children: children)
        }
        // Indefinite: children until the end-of-contents octets (00 00).
        var children: [BERElement] = []
        while true {
            guard offset + 2 <= end else { throw fail(offset, "an indefinite length without its end") }
            if b[offset] == 0, b[offset + 1] == 0 { offset += 2; break }
            children.append(try parse(b, &offset, end: end, depth: depth + 1, count: &count))
        }
        return BERElement(tag: tag, value: [], children: children)
    }

    /// The element in definite-length form: its tag, its length, its contents
    /// (a DER input comes back byte for byte).
    func encoded() -> [UInt8] {
        var content: [UInt8] = value
        if tag & 0x20 != 0 {
            content = []
            for child in children { content += child.encoded() }
        }
        var out: [UInt8] = [tag]
        let n = content.count
        if n < 0x80 {
            out.append(UInt8(n))
        } else {
            var bytes: [UInt8] = []
            var rest = n
            while rest > 0 { bytes.insert(UInt8(rest & 0xFF), at: 0); rest >>= 8 }
            out.append(0x80 | UInt8(bytes.count))
            out += bytes
        }
        return out + content
    }

    /// An OCTET STRING's bytes, joined from its segments when constructed (BER).
    func octetString() throws(ProfileError) -> [UInt8] {
        switch tag {
        case 0x04: return value
        case 0x24:
            var out: [UInt8] = []
            for child in children { out += try child.octetString() }
            return out
        default: throw ProfileError("signature", "the content is not an OCTET STRING (tag 0x\(String(tag, radix: 16)))")
        }
    }
}
