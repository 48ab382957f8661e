import PropertyList

/// The dependents of a domain (persistent or managed), each once.
struct DependentList {
    private(set) var all: [any DomainDependent] = []

    /// Adds `dependent` unless it is there already.
    mutating func attach(_ dependent: any DomainDependent) {
        if !all.contains(where: { $0 === dependent }) { all.append(dependent) }
    }

    /// Removes `dependent`.
    mutating func detach(_ dependent: any DomainDependent) {
        all.removeAll { $0 === dependent }
    }
}
