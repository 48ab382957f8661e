#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Host names as servers check them (the Settings app and the sync server
/// alike): the name of a `Host` header, and whether an address is loopback.
package enum HostNames {
    /// The host name of a `Host` header (lowercased, port removed), or nil
    /// when it is malformed.
    package static func name(ofHostHeader header: String) -> String? {
        var header = header
        // An ASCII header (any real one) is read on its bytes: the sync server reads one a
        // request, and reading it as Characters cost 1.4 µs of a commit's ~100 (issue 42).
        if let ascii = header.withUTF8({ asciiName(ofHostHeader: $0) }) { return ascii }
        return characterName(ofHostHeader: header)
    }

    /// ``name(ofHostHeader:)`` of an ASCII header, on its bytes; `.none` when the header is
    /// not all ASCII (then its Characters are read). The same answer as
    /// ``characterName(ofHostHeader:)``, whose steps it follows (tested on random headers).
    static func asciiName(ofHostHeader h: UnsafeBufferPointer<UInt8>) -> String?? {
        guard h.allSatisfy({ $0 < 0x80 }) else { return .none }
        let bracketed = h.first == UInt8(ascii: "[")
        var nameEnd: Int
        let restStart: Int
        if bracketed {
            guard let close = h.firstIndex(of: UInt8(ascii: "]")) else { return .some(nil) }
            (nameEnd, restStart) = (close + 1, close + 1)
        } else if let colon = h.lastIndex(of: UInt8(ascii: ":")) {
            (nameEnd, restStart) = (colon, colon)
        } else {
            (nameEnd, restStart) = (h.count, h.count)
        }
        if restStart < h.count {
            guard h[restStart] == UInt8(ascii: ":"), h.count - restStart > 1,
                  h[(restStart + 1)...].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return .some(nil) }
        }
        guard nameEnd > 0, !h[..<nameEnd].contains(where: {
            $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "@") || (!bracketed && $0 == UInt8(ascii: ":"))
        }) else { return .some(nil) }
        if h[nameEnd - 1] == UInt8(ascii: ".") { nameEnd -= 1 }  // "localhost." is "localhost"
        return .some(String(unsafeUninitializedCapacity: nameEnd) { out in
            for i in 0..<nameEnd { out[i] = h[i] >= UInt8(ascii: "A") && h[i] <= UInt8(ascii: "Z") ? h[i] + 32 : h[i] }
            return nameEnd
        })
    }

    /// ``name(ofHostHeader:)`` read on the header's Characters (any header; the way for one
    /// that is not ASCII).
    package static func characterName(ofHostHeader header: String) -> String? {
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

    /// Whether `host` is loopback, decided on its addresses: `localhost`,
    /// an address literal in 127.0.0.0/8 or `::1` (IPv4-mapped too), or a
    /// name every address of which is one of those. A name that does not
    /// resolve is not loopback. (A prefix test would take
    /// `127.example.invalid`, which DNS may send anywhere.)
    package static func isLoopback(_ host: String) -> Bool {
        var h = host.lowercased()
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h == "localhost" || h == "localhost." { return true }
        if let literal = loopbackLiteral(h) { return literal }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>? = nil
        guard getaddrinfo(h, nil, &hints, &result) == 0, let first = result else { return false }
        defer { freeaddrinfo(first) }
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let n = node {
            guard let address = n.pointee.ai_addr, isLoopback(address) else { return false }
            node = n.pointee.ai_next
        }
        return true
    }

    /// The names of loopback, as a `Host` header writes them.
    package static let loopbackNames = ["127.0.0.1", "localhost", "[::1]"]

    /// Whether `host` is the address of every interface (`0.0.0.0`, `::`).
    package static func isEveryAddress(_ host: String) -> Bool { host == "0.0.0.0" || host == "::" || host == "[::]" }

    /// The address a server listens on as a `Host` header names it (IPv6 in brackets).
    package static func hostHeaderName(ofAddress host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// The `Host` names a server listening on `host` answers (lowercased, without ports), for
    /// both servers alike: loopback's, the listening address unless it is every address, and
    /// `allowed`; bound to every address without `allowed`, also ``machineNames()``. Any other
    /// name is refused (421), against DNS rebinding.
    package static func answered(listeningOn host: String, allowed: [String]) -> Set<String> {
        var names = Set(loopbackNames)
        if isEveryAddress(host) {
            if allowed.isEmpty { names.formUnion(machineNames()) }
        } else {
            names.insert(hostHeaderName(ofAddress: host).lowercased())
        }
        for name in allowed { names.insert(name.lowercased()) }
        return names
    }

    /// The names this machine answers to by itself, for a server bound to every address that
    /// was given no names to answer for: its host name (as `gethostname` gives it, lowercased)
    /// and the address of each of its network interfaces (IPv6 in brackets, as a `Host` header
    /// writes it; link-local ones without their zone). Names a name server gives it besides
    /// are the operator's to list.
    package static func machineNames() -> [String] {
        var names = Environment.hostName().map { [$0.lowercased()] } ?? []
        var list: UnsafeMutablePointer<ifaddrs>? = nil
        guard getifaddrs(&list) == 0, let first = list else { return names }
        defer { freeifaddrs(first) }
        var node: UnsafeMutablePointer<ifaddrs>? = first
        while let n = node {
            node = n.pointee.ifa_next
            guard let address = n.pointee.ifa_addr else { continue }
            var literal = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                var a = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                if inet_ntop(AF_INET, &a, &literal, socklen_t(literal.count)) != nil { names.append(text(literal)) }
            case AF_INET6:
                var a = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                if inet_ntop(AF_INET6, &a, &literal, socklen_t(literal.count)) != nil { names.append("[" + text(literal) + "]") }
            default:
                continue
            }
        }
        return names
    }

    /// A C string in a buffer, up to its NUL.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether an address literal is loopback; nil when `host` is not a literal.
    static func loopbackLiteral(_ host: String) -> Bool? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return isLoopback(v6) }
        return nil
    }

    private static func isLoopback(_ address: UnsafeMutablePointer<sockaddr>) -> Bool {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) >> 24 == 127 }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { isLoopback($0.pointee.sin6_addr) }
        default:
            return false
        }
    }

    private static func isLoopback(_ a: in6_addr) -> Bool {
        let b = withUnsafeBytes(of: a) { Array($0) }
        if b[0..<15].allSatisfy({ $0 == 0 }), b[15] == 1 { return true }                 // ::1
        if b[0..<10].allSatisfy({ $0 == 0 }), b[10] == 0xFF, b[11] == 0xFF { return b[12] == 127 }  // ::ffff:127.x
        return false
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
