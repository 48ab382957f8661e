/// Host names as servers check them (the Settings app and the sync server
/// alike): the name of a `Host` header, and whether an address is loopback.
package enum HostNames {
    /// The host name of a `Host` header (lowercased, port removed), or nil
    /// when it is malformed.
    package static func name(ofHostHeader header: String) -> String? {
        let h = header.lowercased()
        var name: Substring
        var rest: Substring
        if h.hasPrefix("[") {
            guard let close = h.firstIndex(of: "]") else { return nil }
            name = h[...close]
            rest = h[h.index(after: close)...]
        } else if let colon = h.lastIndex(of: ":") {
            name = h[..<colon]
            rest = h[colon...]
        } else {
            name = Substring(h)
            rest = ""
        }
        if !rest.isEmpty {
            guard rest.first == ":", rest.count > 1, rest.dropFirst().allSatisfy(\.isASCIIDigitCharacter) else { return nil }
        }
        guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "/" || $0 == "@" || (!h.hasPrefix("[") && $0 == ":") }) else { return nil }
        if name.hasSuffix(".") { name = name.dropLast() }  // "localhost." is "localhost"
        return String(name)
    }

    /// Whether a listening address is loopback (`localhost`, `127.*`, `::1`).
    package static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased()
        return h == "localhost" || h == "::1" || h == "[::1]" || h.hasPrefix("127.")
    }
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
}

/// `bytes` random bytes from the system's generator, as lowercase hexadecimal (tokens, identifiers).
package func randomHex(bytes: Int) -> String {
    var generator = SystemRandomNumberGenerator()
    var out = ""
    out.reserveCapacity(bytes * 2)
    for _ in 0..<bytes {
        let b = UInt8.random(in: 0...255, using: &generator)
        out += String(b >> 4, radix: 16) + String(b & 15, radix: 16)
    }
    return out
}
