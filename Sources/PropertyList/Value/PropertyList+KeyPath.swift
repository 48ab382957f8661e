/// A path to a value nested in dictionaries and arrays: `a.b.2`.
///
/// Components are separated by `.`; a `\` makes the next character literal,
/// so `com\.apple\.dock.tiles` names the key `com.apple.dock`, then `tiles`.
/// A component that is a decimal number indexes an array; applied to a
/// dictionary it is an ordinary key.
///
/// ```swift
/// let path = PropertyList.KeyPath("windows.0.width")
/// var value: PropertyList = ["windows": [["width": 640]]]
/// value[keyPath: path] // .integer(640)
/// try value.set(800, at: path)
/// ```
extension PropertyList {
    public struct KeyPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The components, unescaped.
        public var components: [String]

        /// Parses a dotted path with `\` escapes.
        public init(_ text: String) {
            var parts: [String] = []
            var current = ""
            var escaping = false
            for ch in text {
                if escaping { current.append(ch); escaping = false; continue }
                if ch == "\\" { escaping = true; continue }
                if ch == "." { parts.append(current); current = ""; continue }
                current.append(ch)
            }
            if escaping { current.append("\\") }
            parts.append(current)
            components = parts
        }

        /// A path of the given components (no escaping needed).
        public init(components: [String]) { self.components = components }

        public init(stringLiteral value: String) { self.init(value) }

        /// The path written back with escapes.
        public var description: String {
            components.map { $0.replacingEscapes() }.joined(separator: ".")
        }
    }

    /// Why a key-path operation failed.
    public struct KeyPathError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The path (up to and including the failing component).
        public var path: String
        /// What went wrong.
        public var reason: String
        public var description: String { "key path '\(path)': \(reason)" }
    }

    /// The value at `path`, or nil when any component is missing.
    ///
    /// ```swift
    /// let v: PropertyList = ["a": [10, 20]]
    /// v[keyPath: "a.1"]  // .integer(20)
    /// ```
    public subscript(keyPath path: KeyPath) -> PropertyList? {
        var current = self
        for component in path.components {
            switch current {
            case .dictionary(let d):
                guard let next = d[component] else { return nil }
                current = next
            case .array(let a):
                guard let i = Int(component), a.indices.contains(i) else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }

    /// How ``set(_:at:mode:)`` treats an existing value.
    public enum SetMode: Sendable {
        /// Fail when a value exists at the path; in an array, a final index inserts there.
        case insert
        /// Replace the value, or add it when missing.
        case replace
        /// The path must name an array; append the value to it.
        case append
    }

    /// Sets the value at `path`. Intermediate dictionaries must exist.
    ///
    /// ```swift
    /// var v: PropertyList = ["list": [1, 2]]
    /// try v.set(0, at: "list.0", mode: .insert)   // ["list": [0, 1, 2]]
    /// try v.set(3, at: "list", mode: .append)     // ["list": [0, 1, 2, 3]]
    /// ```
    public mutating func set(_ value: PropertyList, at path: KeyPath, mode: SetMode = .replace) throws(KeyPathError) {
        guard !path.components.isEmpty else { return }
        try Self.set(&self, value, path.components[...], mode: mode, done: [])
    }

    private static func set(
        _ node: inout PropertyList, _ value: PropertyList, _ rest: ArraySlice<String>, mode: SetMode, done: [String]
    ) throws(KeyPathError) {
        let component = rest.first!
        let here = done + [component]
        func fail(_ reason: String) -> KeyPathError {
            KeyPathError(path: KeyPath(components: here).description, reason: reason)
        }
        let last = rest.count == 1
        switch node {
        case .dictionary(var d):
            if last {
                switch mode {
                case .insert:
                    if d[component] != nil { throw fail("a value already exists there") }
                    d[component] = value
                case .replace:
                    d[component] = value
                case .append:
                    guard case .array(var a)? = d[component] else {
                        throw fail(d[component] == nil ? "no array exists there to append to" : "the value there is not an array")
                    }
                    a.append(value)
                    d[component] = .array(a)
                }
            } else {
                guard var child = d[component] else { throw fail("no value exists there") }
                try set(&child, value, rest.dropFirst(), mode: mode, done: here)
                d[component] = child
            }
            node = .dictionary(d)
        case .array(var a):
            guard let i = Int(component), i >= 0 else { throw fail("expected an array index") }
            if last {
                switch mode {
                case .insert:
                    guard i <= a.count else { throw fail("index \(i) is beyond the array's \(a.count) elements") }
                    a.insert(value, at: i)
                case .replace:
                    guard i <= a.count else { throw fail("index \(i) is beyond the array's \(a.count) elements") }
                    if i == a.count { a.append(value) } else { a[i] = value }
                case .append:
                    guard a.indices.contains(i), case .array(var inner) = a[i] else { throw fail("the value there is not an array") }
                    inner.append(value)
                    a[i] = .array(inner)
                }
            } else {
                guard a.indices.contains(i) else { throw fail("index \(i) is beyond the array's \(a.count) elements") }
                var child = a[i]
                try set(&child, value, rest.dropFirst(), mode: mode, done: here)
                a[i] = child
            }
            node = .array(a)
        default:
            throw fail("the value at '\(KeyPath(components: done).description)' is a \(node.kind.rawValue), not a dictionary or array")
        }
    }

    /// Removes the value at `path`.
    ///
    /// - Throws: ``KeyPathError`` when there is no value there.
    public mutating func remove(at path: KeyPath) throws(KeyPathError) {
        guard !path.components.isEmpty else { return }
        try Self.remove(&self, path.components[...], done: [])
    }

    private static func remove(_ node: inout PropertyList, _ rest: ArraySlice<String>, done: [String]) throws(KeyPathError) {
        let component = rest.first!
        let here = done + [component]
        let fail = KeyPathError(path: KeyPath(components: here).description, reason: "no value exists there")
        switch node {
        case .dictionary(var d):
            guard var child = d[component] else { throw fail }
            if rest.count == 1 {
                d[component] = nil
            } else {
                try remove(&child, rest.dropFirst(), done: here)
                d[component] = child
            }
            node = .dictionary(d)
        case .array(var a):
            guard let i = Int(component), a.indices.contains(i) else { throw fail }
            if rest.count == 1 {
                a.remove(at: i)
            } else {
                var child = a[i]
                try remove(&child, rest.dropFirst(), done: here)
                a[i] = child
            }
            node = .array(a)
        default:
            throw fail
        }
    }
}

extension String {
    fileprivate func replacingEscapes() -> String {
        var out = ""
        for ch in self {
            if ch == "." || ch == "\\" { out.append("\\") }
            out.append(ch)
        }
        return out
    }
}
