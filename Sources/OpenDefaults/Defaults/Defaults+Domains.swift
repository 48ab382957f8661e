public import PropertyList
import Synchronization
import PlatformIO
import SharedTables

extension Defaults {
    /// Inserts the suite `suiteName` into the search list after this
    /// object's own domain (before the global domain).
    ///
    /// ```swift
    /// defaults.addSuite(named: "group.com.example.shared")
    /// ```
    public func addSuite(named suiteName: String) {
        guard PreferencesLayout.isValidDomainName(suiteName), LiteralString(suiteName) != LiteralString(domainName),
            suiteName != PreferencesLayout.globalDomainName
        else { return }
        searchList.context.suiteLists.add(suiteName, to: domainName)
    }

    /// Removes the suite `suiteName` from the search list.
    ///
    /// ```swift
    /// defaults.removeSuite(named: "group.com.example.shared")
    /// ```
    public func removeSuite(named suiteName: String) {
        searchList.context.suiteLists.remove(suiteName, from: domainName)
    }

    /// The suites in the search list, in order. Suites belong to the
    /// application domain: every defaults object of ``domainName`` (and
    /// ``CFPreferences`` for it) shares one list, as on Apple platforms.
    ///
    /// ```swift
    /// defaults.suites  // ["group.com.example.shared"]
    /// ```
    public var suites: [String] { searchList.context.suiteLists.suites(of: domainName) }

    // MARK: Volatile domains

    /// Sets a volatile (in-memory) domain. Language domains are volatile
    /// domains named by a language (`fr`, `en-GB`). When a value is not a
    /// property list nothing is changed and the store's error handler is
    /// told which key.
    ///
    /// ```swift
    /// defaults.setVolatileDomain(["Mode": "demo"], forName: "Demo")
    /// ```
    public func setVolatileDomain(_ domain: [String: Any], forName name: String) {
        do { setVolatileDomainValues(try DefaultsConversion.domain(domain, name: name, path: ""), forName: name) } catch {
            store.report(error)
        }
    }

    /// Sets a volatile domain of typed values. `NSRegistrationDomain` replaces
    /// the registration domain; `NSArgumentDomain` cannot be replaced.
    ///
    /// ```swift
    /// defaults.setVolatileDomainValues(["Mode": "demo"], forName: "Demo")
    /// ```
    public func setVolatileDomainValues(_ domain: [LiteralString: PropertyList], forName name: String) {
        if name == RegistrationDomain.name {
            searchList.registration.replace(domain)
            searchList.rebuildAndNotify()
            return
        }
        guard name != ArgumentDomain.name else { return }
        searchList.state.withLock { $0.volatileDomains[name] = domain }
        searchList.rebuildAndNotify()
    }

    /// The volatile domain `name` (including `NSArgumentDomain` and `NSRegistrationDomain`).
    public func volatileDomain(forName name: String) -> [String: Any] {
        volatileDomainValues(forName: name).keyedByString(\.bridgedValue)
    }

    /// The volatile domain `name` as typed values.
    public func volatileDomainValues(forName name: String) -> [LiteralString: PropertyList] {
        switch name {
        case ArgumentDomain.name: arguments
        case RegistrationDomain.name: searchList.registration.values.withLock { $0 }
        default: searchList.state.withLock { $0.volatileDomains[name] ?? [:] }
        }
    }

    /// The names of the volatile domains, `NSArgumentDomain` and `NSRegistrationDomain` among them.
    public var volatileDomainNames: [String] {
        [ArgumentDomain.name, RegistrationDomain.name] + searchList.state.withLock { $0.volatileDomains.keys.sorted() }
    }

    /// Removes a volatile domain.
    public func removeVolatileDomain(forName name: String) {
        if name == RegistrationDomain.name { setVolatileDomainValues([:], forName: name); return }
        let removed = searchList.state.withLock { $0.volatileDomains.removeValue(forKey: name) != nil }
        if removed { searchList.rebuildAndNotify() }
    }

    // MARK: Persistent domains

    /// The persistent domain `name` (current user, any host), or nil when it
    /// has no entries.
    public func persistentDomain(forName name: String) -> [String: Any]? {
        persistentDomainValues(forName: name)?.keyedByString(\.bridgedValue)
    }

    /// The persistent domain `name` as typed values, or nil when it has no entries.
    public func persistentDomainValues(forName name: String) -> [LiteralString: PropertyList]? {
        guard PreferencesLayout.isValidDomainName(name) else { return nil }
        let entries = store.domain(name, scope: .currentUser).entries
        return entries.isEmpty ? nil : entries
    }

    /// Replaces the persistent domain `name`. When a value is not a property
    /// list nothing is changed and the store's error handler is told which key.
    ///
    /// ```swift
    /// defaults.setPersistentDomain(["Volume": 5], forName: "com.example.player")
    /// ```
    public func setPersistentDomain(_ domain: [String: Any], forName name: String) {
        guard PreferencesLayout.isValidDomainName(name) else { return }
        let path = store.domain(name, scope: .currentUser).path
        do { setPersistentDomainValues(try DefaultsConversion.domain(domain, name: name, path: path), forName: name) } catch {
            store.report(error)
        }
    }

    /// Replaces the persistent domain `name` with typed values.
    ///
    /// ```swift
    /// defaults.setPersistentDomainValues(["Volume": 5], forName: "com.example.player")
    /// ```
    public func setPersistentDomainValues(_ domain: [LiteralString: PropertyList], forName name: String) {
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

    private func refreshIfInSearchList(_ name: String, keys: some Sequence<LiteralString>) {
        let literal = LiteralString(name)
        if searchList.order.names.contains(where: { LiteralString($0) == literal }) {
            searchList.refresh(keys)
        }
    }
}
