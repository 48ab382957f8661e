/// Base64 as property lists use it: the XML writer's line layout, and a
/// reader that skips whitespace.
package enum Base64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let decodeTable: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    /// The base64 text of `bytes`, one unbroken run with `=` padding (the sync protocol's value encoding).
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        encode(Array(bytes))
    }

    /// The base64 text of `bytes`, as the generic `encode(_:)` gives it. Not generic: the sync
    /// server encodes a value a commit from another module, which does not specialize the
    /// generic one (its metadata looked up, the bytes copied, the output grown).
    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        bytes.withUnsafeBytes { encode($0, lineLength: 0, indent: 0, into: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the base64 form of `bytes`, broken into lines of `lineLength`
    /// characters, each line preceded by `indent` tabs and followed by a newline.
    /// A `lineLength` of 0 writes one unbroken run without indentation or newline.
    package static func encode<O: ByteAppending & ~Copyable>(_ bytes: UnsafeRawBufferPointer, lineLength: Int, indent: Int, into out: inout O) {
        let n = bytes.count
        out.reserve(n * 4 / 3 + n / 40 * (indent + 1) + 8)
        // Whole lines of four-character groups are written in place; the
        // last group (padding) and the line breaks are handled one by one.
        let groups = n / 3
        let perLine = lineLength > 0 ? lineLength : Int.max
        alphabet.withUnsafeBufferPointer { a in
            var column = 0
            @inline(__always) func put(_ c: UInt8) {
                if lineLength > 0 && column == 0 { out.append(tabs: indent) }
                out.append(c)
                column += 1
                if column == perLine {
                    out.append(0x0A)
                    column = 0
                }
            }
            var g = 0
            while g < groups {
                // Groups that fit on the current line, written in one go.
                let room = perLine == Int.max ? groups - g : Swift.max(0, (perLine - column) / 4)
                let run = Swift.min(room, groups - g)
                if run == 0 {
                    // A group broken across lines (a line length that is no multiple of 4).
                    let i = 3 * g
                    let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                    put(a[Int(v >> 18)]); put(a[Int(v >> 12 & 0x3F)]); put(a[Int(v >> 6 & 0x3F)]); put(a[Int(v & 0x3F)])
                    g += 1
                    continue
                }
                if lineLength > 0 && column == 0 { out.append(tabs: indent) }
                out.reserve(4 * run)
                for k in g..<(g + run) {
                    let i = 3 * k
                    let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                    out.append(a[Int(v >> 18)])
                    out.append(a[Int(v >> 12 & 0x3F)])
                    out.append(a[Int(v >> 6 & 0x3F)])
                    out.append(a[Int(v & 0x3F)])
                }
                column += 4 * run
                g += run
                if column == perLine {
                    out.append(0x0A)
                    column = 0
                }
            }
            let i = 3 * groups
            if n - i == 1 {
                let v = UInt32(bytes[i]) << 16
                put(a[Int(v >> 18)]); put(a[Int(v >> 12 & 0x3F)]); put(0x3D); put(0x3D)
            } else if n - i == 2 {
                let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
                put(a[Int(v >> 18)]); put(a[Int(v >> 12 & 0x3F)]); put(a[Int(v >> 6 & 0x3F)]); put(0x3D)
            }
            if lineLength > 0 && column != 0 { out.append(0x0A) }
        }
    }

    /// Decodes base64 text as CoreFoundation does: characters outside the
    /// alphabet (whitespace, `=` padding, anything else) are skipped.
    package static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        decode(text, appendingTo: &out)
        return out
    }

    /// ``decode(_:)``, appending the bytes to `out`.
    static func decode(_ text: UnsafeRawBufferPointer, appendingTo out: inout [UInt8]) {
        let need = text.count * 3 / 4
        if out.capacity - out.count < need { out.reserveCapacity(Swift.max(out.count + need, 2 * out.capacity)) }
        var acc: UInt32 = 0
        var bits = 0
        decodeTable.withUnsafeBufferPointer { t in
            for c in text {
                let v = t[Int(c)]
                if v == 0xFF { continue }
                acc = acc << 6 | UInt32(v)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
                }
            }
        }
    }
}
