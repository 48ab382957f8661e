/// The word a person most likely meant: for "did you mean …?" after a typo in a
/// verb, an option or a type flag.
package enum ClosestWord {
    /// The candidate nearest to `word` (optimal string alignment distance: one
    /// letter added, removed, changed, or two neighbours swapped, each cost 1),
    /// when it is near enough to be a typo: at most 1 edit for words of up to 4
    /// letters, 2 for longer ones; or, with `prefixes`, a candidate that `word`
    /// begins (a shortened verb). With `ignoringCase`, letters that differ only
    /// in case (ASCII) cost nothing. Ties go to the first candidate given.
    package static func suggestion(for word: String, among candidates: some Sequence<String>,
                                   ignoringCase: Bool = false, prefixes: Bool = true) -> String? {
        let fold: (String) -> [Unicode.Scalar] = { text in
            ignoringCase ? text.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 } : Array(text.unicodeScalars)
        }
        let typed = fold(word)
        let limit = typed.count <= 4 ? 1 : 2
        var best: (word: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let d = distance(typed, fold(candidate))
            if d <= limit, d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        if let best { return best.word }
        if prefixes, typed.count >= 3 { return candidates.first { fold($0).starts(with: typed) } }
        return nil
    }

    /// Optimal string alignment distance between `a` and `b`.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, before[j - 2] + 1) }
                current[j] = d
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
