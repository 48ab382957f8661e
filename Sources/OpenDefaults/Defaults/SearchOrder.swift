import PropertyList

/// The one definition of an application's search list, used by every
/// ``Defaults`` object and by ``CFPreferences`` alike.
///
/// For the application `app` with `suites`: the names searched are the
/// application, its suites (in the order added), then `NSGlobalDomain`.
/// Forced (managed) values of those names come first; then the persistent
/// domains, every current-user level before every any-user level, and at
/// each user level every name's this-host domain before its any-host one.
/// (`Defaults` puts `NSArgumentDomain` after the forced values and the
/// language and registration domains after the persistent ones; CFPreferences
/// has neither.)
struct SearchOrder: Sendable {
    /// The domain names searched, in order.
    let names: [String]

    /// Names compare by their exact scalars: a suite that only looks like
    /// the application (or like another suite) is searched on its own.
    init(application: String, suites: [String]) {
        let global = LiteralString(PreferencesLayout.globalDomainName)
        var names = [application]
        var seen: Set<LiteralString> = [LiteralString(application), global]
        for suite in suites where seen.insert(LiteralString(suite)).inserted {
            names.append(suite)
        }
        if LiteralString(application) != global { names.append(PreferencesLayout.globalDomainName) }
        self.names = names
    }

    /// The persistent domains searched, in order.
    var persistent: [(name: String, scope: PreferenceScope)] {
        var list: [(name: String, scope: PreferenceScope)] = []
        list.reserveCapacity(names.count * 4)
        for user in [PreferenceScope.User.current, .any] {
            for name in names {
                list.append((name, PreferenceScope(user: user, host: .current)))
                list.append((name, PreferenceScope(user: user, host: .any)))
            }
        }
        return list
    }

    /// The forced value of `key`, if an administrator forces it in one of ``names``.
    func forcedValue(forKey key: String, in store: DomainStore) -> PropertyList? {
        for name in names {
            if let v = store.managedDomain(name).value(forKey: key) { return v }
        }
        return nil
    }

    /// The value of `key`: forced, else the first persistent domain that has it.
    func value(forKey key: String, in store: DomainStore) -> PropertyList? {
        if let forced = forcedValue(forKey: key, in: store) { return forced }
        for (name, scope) in persistent {
            if let v = store.domain(name, scope: scope).value(forKey: key) { return v }
        }
        return nil
    }
}
