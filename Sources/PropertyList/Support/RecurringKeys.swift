/// The dictionaries a reader has met, noted in 64 places: what identifies
/// each one's keys (a `Signature`: where their references lie in a binary
/// file, a fingerprint of their text in XML) and, once keys with the same
/// signature have been met twice, their ``DictionaryShape``.
///
/// A signature and its shape are always written together, after the
/// dictionary's values have been read (which may note other dictionaries in
/// the same place), so a shape is only ever found beside the signature it
/// was made for.
struct RecurringKeys<Signature> {
    /// Empty until the first dictionary is noted: a reader that never notes
    /// one (a lookup of one key) allocates nothing, and makes no generic
    /// array type at run time, which in a cold process costs a scan of the
    /// binary's protocol conformances.
    private var signatures: [Signature?] = []
    private var shapes: [DictionaryShape?] = []
    private static var places: Int { 64 }

    /// What a reader knows of a dictionary's keys when it has read them.
    enum Known {
        /// Not met before (or pushed out of its place by other keys since).
        case new
        /// Met once before: this time a shape can be made.
        case metOnce
        /// Met at least twice before, laid out in this shape.
        case shape(DictionaryShape)
    }

    /// The place of a signature, from a hash of it.
    @inline(__always)
    static func place(_ hash: UInt64) -> Int {
        Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> 58)
    }

    /// What is known at `place` of the keys whose signature `isSame` accepts.
    @inline(__always)
    func lookup(_ place: Int, isSame: (Signature) -> Bool) -> Known {
        guard !signatures.isEmpty, let noted = signatures[place], isSame(noted) else { return .new }
        if let shape = shapes[place] { return .shape(shape) }
        return .metOnce
    }

    /// Notes the keys of a dictionary just read: their signature and, when
    /// they had been met before, their shape (nil when a key repeats).
    @inline(__always)
    mutating func note(_ signature: Signature, at place: Int, shape: DictionaryShape?) {
        if signatures.isEmpty {
            signatures = Array(repeating: nil, count: Self.places)
            shapes = Array(repeating: nil, count: Self.places)
        }
        signatures[place] = signature
        if shape != nil || shapes[place] != nil { shapes[place] = shape }
    }
}

extension RecurringKeys where Signature == UInt64 {
    /// `fingerprint` with one more key mixed in, from the key's text as the
    /// document spells it: its length and its first and last bytes. The text
    /// readers' signature of a dictionary's keys (it only finds a candidate).
    @inline(__always)
    static func fingerprint(_ fingerprint: UInt64, adding text: UnsafeRawBufferPointer) -> UInt64 {
        var f = fingerprint
        if let first = text.first, let last = text.last {
            f = (f ^ (UInt64(text.count) << 16 | UInt64(first) << 8 | UInt64(last))) &* 0x100_0000_01B3
        }
        return (f ^ 1) &* 0x100_0000_01B3
    }

    /// The dictionary of the entries on `stack` from `base` (taken off it),
    /// whose keys' text has `fingerprint` (the text readers' signature).
    ///
    /// Keys met in this order before are laid out in a shape: from the third
    /// such dictionary on, the shape's template is copied and no key is
    /// hashed (the second makes the shape, the first is only noted). A
    /// fingerprint only finds a candidate: the keys themselves are compared
    /// before a shape is used. A repeated key keeps the value met last, as
    /// when the entries are inserted in order.
    mutating func dictionary(taking stack: inout [(LiteralString, PropertyList)], from base: Int, fingerprint: UInt64) -> [LiteralString: PropertyList] {
        let count = stack.count - base
        let place = Self.place(fingerprint)
        var recurring = false
        switch lookup(place, isSame: { $0 == fingerprint }) {
        case .shape(let shape) where shape.matches(stack[base...].lazy.map { $0.0 }):
            var entries = shape.template
            var k = count
            while stack.count > base {
                k -= 1
                entries.values[shape.slots[k]] = stack.removeLast().1
            }
            return entries
        case .metOnce: recurring = true
        case .shape, .new: break
        }
        let keys = recurring ? stack[base...].map { $0.0 } : []
        // Moved off the stack from the end, so nothing is copied.
        var entries = [LiteralString: PropertyList](minimumCapacity: count)
        while stack.count > base {
            let (key, value) = stack.removeLast()
            entries.insertIfAbsent(value, forKey: key)
        }
        note(fingerprint, at: place, shape: recurring ? DictionaryShape(keys: keys) : nil)
        return entries
    }
}
