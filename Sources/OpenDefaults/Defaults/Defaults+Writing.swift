#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

extension Defaults {
    /// Sets `key` in this object's domain (nil removes it, and a registered
    /// default shows through again). Memory at once; disk within milliseconds.
    ///
    /// ```swift
    /// defaults.set(.array(["a", "b"]), forKey: "Recent")
    /// ```
    public func set(_ value: PropertyList?, forKey key: String) {
        // The domain reports the change synchronously; every defaults object
        // whose search list holds it (this one too) refreshes the key.
        ownDomain.set(value, forKey: key)
    }

    /// `UserDefaults.set(_:forKey:)` for any property-list value (`String`,
    /// numbers, `Bool`, `Date`, `Data`, arrays, `[String: Any]`); nil removes.
    /// A value that is not a property list is not stored: the error (naming
    /// the key and the type) goes to the store's error handler and the old
    /// value stays. ``setValue(_:forKey:)`` throws it instead.
    public func set(_ value: Any?, forKey key: String) {
        do { try setValue(value, forKey: key) } catch { store.report(error) }
    }

    /// Sets `key` to a Foundation-style value, or throws when it is not a property list.
    ///
    /// ```swift
    /// try defaults.setValue(["a": 1] as [String: Any], forKey: "Dict")
    /// ```
    public func setValue(_ value: Any?, forKey key: String) throws(StorageError) {
        guard let value else { set(PropertyList?.none, forKey: key); return }
        if let url = value as? URL { set(url, forKey: key); return }
        do {
            set(try PropertyList(bridging: value), forKey: key)
        } catch {
            throw StorageError(domain: domainName, path: ownDomain.path, kind: .invalidValue,
                reason: "cannot store the value for key '\(key)': \(error.reason)" + (error.location == .keyPath("") ? "" : " (at \(error.location))"))
        }
    }

    /// Sets an integer.
    public func set(_ value: Int, forKey key: String) { set(PropertyList(value), forKey: key) }
    /// Sets a `Float` (stored as a real).
    public func set(_ value: Float, forKey key: String) { set(PropertyList(value), forKey: key) }
    /// Sets a `Double`.
    public func set(_ value: Double, forKey key: String) { set(PropertyList(value), forKey: key) }
    /// Sets a boolean.
    public func set(_ value: Bool, forKey key: String) { set(PropertyList(value), forKey: key) }

    /// Sets a URL as macOS does: a file URL as its path (with `~` for the
    /// home folder), any other URL as keyed-archive data.
    public func set(_ url: URL?, forKey key: String) {
        guard let url else { set(PropertyList?.none, forKey: key); return }
        if url.isFileURL {
            var path = url.path
            if let home = Environment["HOME"], !home.isEmpty, home != "/", path.hasPrefix(home + "/") || path == home {
                path = "~" + path.dropFirst(home.count)
            }
            set(.string(path), forKey: key)
        } else {
            set(.data(URLArchive.encode(url)), forKey: key)
        }
    }

    /// Removes `key` from this object's domain.
    public func removeObject(forKey key: String) { set(PropertyList?.none, forKey: key) }

    /// Merges `defaults` into the registration domain, shared by every
    /// defaults object in the process and never saved.
    ///
    /// ```swift
    /// defaults.register(defaults: ["NextItemValue": 1, "NextItemName": "Item"])
    /// ```
    public func register(defaults: [String: Any]) {
        var typed: [String: PropertyList] = [:]
        for (key, value) in defaults {
            do { typed[key] = try PropertyList(bridging: value) } catch {
                store.report(StorageError(domain: RegistrationDomain.name, path: "", kind: .invalidValue,
                    reason: "cannot register the value for key '\(key)': \(error.reason)"))
            }
        }
        register(typed)
    }

    /// Merges typed values into the registration domain.
    public func register(_ defaults: [String: PropertyList]) {
        RegistrationDomain.register(defaults)
        searchList.checkRegistration()
    }

    /// Writes pending changes durably and reloads what other processes
    /// wrote. False when it cannot write; ``synchronizeOrThrow()`` says why.
    @discardableResult
    public func synchronize() -> Bool {
        do { try synchronizeOrThrow(); return true } catch { return false }
    }

    /// `synchronize()` that throws the reason it could not write or read.
    public func synchronizeOrThrow() throws(StorageError) {
        try store.synchronizeAll()
        searchList.rebuild()
    }
}
