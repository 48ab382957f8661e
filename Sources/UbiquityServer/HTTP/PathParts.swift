/// A request path's parts between slashes, as `path.split(separator: "/",
/// omittingEmptySubsequences: false)` gives them (the part before the first slash
/// included), found in one pass: every request's route is read from them twice (its
/// label, ``UbiquityHTTPServer/routeLabel(_:_:)``, and its admission,
/// ``UbiquityService/admit(_:)``). Only the first five parts are kept, as offsets into
/// the path's UTF-8; ``count`` counts them all.
///
/// A part is compared with a name by its bytes (``part(_:is:)``): no `Substring` is made
/// (each one retains the path's storage), and two texts that look alike are two texts.
///
/// ```swift
/// let parts = PathParts("/v1/stores/com.example.app/commit")
/// // parts.count == 5, parts.part(4, is: "commit"), parts[3] == "com.example.app"
/// ```
struct PathParts {
    let path: String
    /// How many parts the path has (one more than its slashes).
    private(set) var count = 0
    /// Where each of the first five parts starts and ends in the path's UTF-8.
    private var bounds: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    init(_ path: String) {
        self.path = path
        var start = 0
        let scanned: Void? = path.utf8.withContiguousStorageIfAvailable { bytes in
            for i in bytes.indices where bytes[i] == UInt8(ascii: "/") {
                keep(start, i)
                start = i + 1
            }
        }
        if scanned == nil {
            // A string without contiguous UTF-8 (never a native one): its bytes one by one.
            for (i, byte) in path.utf8.enumerated() where byte == UInt8(ascii: "/") {
                keep(start, i)
                start = i + 1
            }
        }
        keep(start, path.utf8.count)
    }

    private mutating func keep(_ start: Int, _ end: Int) {
        switch count {
        case 0: (bounds.0, bounds.1) = (start, end)
        case 1: (bounds.2, bounds.3) = (start, end)
        case 2: (bounds.4, bounds.5) = (start, end)
        case 3: (bounds.6, bounds.7) = (start, end)
        case 4: (bounds.8, bounds.9) = (start, end)
        default: break
        }
        count += 1
    }

    /// Where part `i` (0 to 4) starts and ends; an empty range past the path's parts.
    private func range(_ i: Int) -> (start: Int, end: Int) {
        guard i < count else { return (0, 0) }
        switch i {
        case 0: return (bounds.0, bounds.1)
        case 1: return (bounds.2, bounds.3)
        case 2: return (bounds.4, bounds.5)
        case 3: return (bounds.6, bounds.7)
        case 4: return (bounds.8, bounds.9)
        default: preconditionFailure("PathParts keeps the first five parts only")
        }
    }

    /// Whether part `i` (0 to 4) is exactly `name`, byte for byte.
    func part(_ i: Int, is name: StaticString) -> Bool {
        let (start, end) = range(i)
        guard end - start == name.utf8CodeUnitCount else { return false }
        return name.withUTF8Buffer { wanted in
            path.utf8.withContiguousStorageIfAvailable { bytes in bytes[start..<end].elementsEqual(wanted) }
                ?? Array(path.utf8)[start..<end].elementsEqual(wanted)
        }
    }

    /// Whether part `i` (0 to 4) is empty.
    func isEmpty(_ i: Int) -> Bool { let (start, end) = range(i); return start == end }

    /// Part `i` (0 to 4) as text ("" past the path's parts).
    subscript(_ i: Int) -> Substring {
        let (start, end) = range(i)
        let utf8 = path.utf8
        return Substring(utf8[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)])
    }
}
