/// Where a writer is in the value it writes, kept as steps and spelled as a
/// key path (`a.0.b`) only for an error: building the text for every value
/// made a third of the JSON and old-style writers' time.
struct KeyPathTrail {
    private enum Step {
        case index(Int)
        case key(String)
    }

    private var steps: [Step] = []

    mutating func push(index: Int) { steps.append(.index(index)) }
    mutating func push(key: String) { steps.append(.key(key)) }
    mutating func pop() { steps.removeLast() }

    /// The key path, components joined by dots (empty at the top).
    var text: String {
        steps.map { step in
            switch step {
            case .index(let k): String(k)
            case .key(let key): key
            }
        }.joined(separator: ".")
    }
}
