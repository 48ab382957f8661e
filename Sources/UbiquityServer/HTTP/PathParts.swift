/// A request path's parts between slashes, as `path.split(separator: "/",
/// omittingEmptySubsequences: false)` gives them (the part before the first slash
/// included), found in one pass without an array: every request's route is read
/// from them twice (its label, ``UbiquityHTTPServer/routeLabel(_:_:)``, and its
/// admission, ``UbiquityService/admit(_:)``). Only the first five parts are kept;
/// ``count`` counts them all.
///
/// ```swift
/// let parts = PathParts("/v1/stores/com.example.app/commit")
/// // parts.count == 5, parts[3] == "com.example.app"
/// ```
struct PathParts {
    /// How many parts the path has (one more than its slashes).
    private(set) var count = 0
    private var kept: (Substring, Substring, Substring, Substring, Substring) = ("", "", "", "", "")

    init(_ path: String) {
        var start = path.startIndex
        var index = path.startIndex
        let end = path.endIndex
        while index != end {
            if path.utf8[index] == UInt8(ascii: "/") {
                keep(path[start..<index])
                start = path.utf8.index(after: index)
            }
            index = path.utf8.index(after: index)
        }
        keep(path[start..<end])
    }

    private mutating func keep(_ part: Substring) {
        switch count {
        case 0: kept.0 = part
        case 1: kept.1 = part
        case 2: kept.2 = part
        case 3: kept.3 = part
        case 4: kept.4 = part
        default: break
        }
        count += 1
    }

    /// Part `i` (0 to 4; "" past the path's parts).
    subscript(_ i: Int) -> Substring {
        guard i < count else { return "" }
        switch i {
        case 0: return kept.0
        case 1: return kept.1
        case 2: return kept.2
        case 3: return kept.3
        case 4: return kept.4
        default: preconditionFailure("PathParts keeps the first five parts only")
        }
    }
}
