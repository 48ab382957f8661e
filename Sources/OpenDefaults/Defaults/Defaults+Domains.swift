import PropertyList

extension Defaults {
    /// Inserts the suite `suiteName` into the search list after this
    /// object's own domain (before the global domain).
    ///
    /// ```swift
    /// defaults.addSuite(named: "group.com.example.shared")
    /// ```
    public func addSuite(named suiteName: String) {
        guard PreferencesLayout.isValidDomainName(suiteName), suiteName != domainName,
            suiteName != PreferencesLayout.globalDomainName
        else { return }
        let added = searchList.state.withLock { s -> Bool in
            guard !s.suites.contains(suiteName) else { return false }
            s.suites.append(suiteName)
            return true
        }
        if added { searchList.rebuildAndNotify() }
    }

    /// Removes the suite `suiteName` from the search list.
    public func removeSuite(named suiteName: String) {
        let removed = searchList.state.withLock { s -> Bool in
            guard let i = s.suites.firstIndex(of: suiteName) else { return false }
            s.suites.remove(at: i)
            return true
        }
        if removed { searchList.rebuildAndNotify() }
    }

    /// The suites in the search list, in order.
    public var suites: [String] { searchList.state.withLock { $0.suites } }

    // MARK: Volatile domains

    /// Sets a volatile (in-memory) domain. Language domains are volatile
    /// domains named by a language (`fr`, `en-GB`).
    public func setVolatileDomain(_ domain: [String: Any], forName name: String) {
        var typed: [String: PropertyList] = [:]
        for (k, v) in domain { if let p = try? PropertyList(bridging: v) { typed[k] = p } }
        setVolatileDomain(typed, forName: name)
    }

    /// Sets a volatile domain of typed values. `NSRegistrationDomain` replaces
    /// the registration domain; `NSArgumentDomain` cannot be replaced.
    public func setVolatileDomain(_ domain: [String: PropertyList], forName name: String) {
        if name == RegistrationDomain.name {
            RegistrationDomain.replace(domain)
            searchList.rebuildAndNotify()
            return
        }
        guard name != ArgumentDomain.name else { return }
        searchList.state.withLock { $0.volatileDomains[name] = domain }
        searchList.rebuildAndNotify()
    }

    /// The volatile domain `name` (including `NSArgumentDomain` and `NSRegistrationDomain`).
    public func volatileDomain(forName name: String) -> [String: Any] {
        volatileDomainValues(forName: name).mapValues(\.bridgedValue)
    }

    /// The volatile domain `name` as typed values.
    public func volatileDomainValues(forName name: String) -> [String: PropertyList] {
        switch name {
        case ArgumentDomain.name: arguments
        case RegistrationDomain.name: RegistrationDomain.values.withLock { $0 }
        default: searchList.state.withLock { $0.volatileDomains[name] ?? [:] }
        }
    }

    /// The names of the volatile domains, `NSArgumentDomain` and `NSRegistrationDomain` among them.
    public var volatileDomainNames: [String] {
        [ArgumentDomain.name, RegistrationDomain.name] + searchList.state.withLock { $0.volatileDomains.keys.sorted() }
    }

    /// Removes a volatile domain.
    public func removeVolatileDomain(forName name: String) {
        if name == RegistrationDomain.name { setVolatileDomain([String: PropertyList](), forName: name); return }
        let removed = searchList.state.withLock { $0.volatileDomains.removeValue(forKey: name) != nil }
        if removed { searchList.rebuildAndNotify() }
    }

    // MARK: Persistent domains

    /// The persistent domain `name` (current user, any host), or nil when it
    /// has no entries.
    public func persistentDomain(forName name: String) -> [String: Any]? {
        persistentDomainValues(forName: name)?.mapValues(\.bridgedValue)
    }

    /// The persistent domain `name` as typed values, or nil when it has no entries.
    public func persistentDomainValues(forName name: String) -> [String: PropertyList]? {
        guard PreferencesLayout.isValidDomainName(name) else { return nil }
        let entries = store.domain(name, scope: .currentUser).entries
        return entries.isEmpty ? nil : entries
    }

    /// Replaces the persistent domain `name`.
    public func setPersistentDomain(_ domain: [String: Any], forName name: String) {
        var typed: [String: PropertyList] = [:]
        for (k, v) in domain {
            do { typed[k] = try PropertyList(bridging: v) } catch {
                store.report(StorageError(domain: name, path: "", kind: .invalidValue,
                    reason: "setPersistentDomain: the value for key '\(k)' is not a property list: \(error.reason); the domain was not changed"))
                return
            }
        }
        setPersistentDomain(typed, forName: name)
    }

    /// Replaces the persistent domain `name` with typed values.
    public func setPersistentDomain(_ domain: [String: PropertyList], forName name: String) {
        guard PreferencesLayout.isValidDomainName(name) else { return }
        store.domain(name, scope: .currentUser).replaceAll(with: domain)
        refreshIfInSearchList(name, keys: Set(domain.keys).union(searchList.state.withLock { Array($0.resolved.keys) }))
    }

    /// Removes the persistent domain `name` and its file.
    public func removePersistentDomain(forName name: String) {
        guard PreferencesLayout.isValidDomainName(name) else { return }
        let d = store.domain(name, scope: .currentUser)
        let keys = Array(d.entries.keys)
        d.replaceAll(with: nil)
        refreshIfInSearchList(name, keys: keys)
    }

    /// The names of the current user's persistent domains.
    public func persistentDomainNames() -> [String] {
        store.persistentDomainNames(scope: .currentUser)
    }

    private func refreshIfInSearchList(_ name: String, keys: some Sequence<String>) {
        if name == domainName || name == PreferencesLayout.globalDomainName || suites.contains(name) {
            searchList.refresh(keys)
        }
    }
}
