#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import PlatformIO
public import PropertyList

extension Defaults {
    /// Sets `key` to a typed value in this object's domain (nil removes it,
    /// and a registered default shows through again). Memory at once; disk
    /// within milliseconds.
    ///
    /// ```swift
    /// defaults.setPropertyList(.array(["a", "b"]), forKey: "Recent")
    /// ```
    public func setPropertyList(_ value: PropertyList?, forKey key: String) {
        // The domain reports the change synchronously; every defaults object
        // whose search list holds it (this one too) refreshes the key.
        ownDomain.set(value, forKey: key)
    }

    /// `UserDefaults.set(_:forKey:)` for any property-list value (`String`,
    /// numbers, `Bool`, `Date`, `Data`, `URL`, arrays, `[String: Any]`, and
    /// Foundation's `NS…` objects when `OpenDefaultsFoundation` is linked);
    /// nil removes. A value that is not a property list is not stored: the
    /// error (naming the key and the type) goes to the store's error handler
    /// and the old value stays. ``setOrThrow(_:forKey:)`` throws it instead.
    ///
    /// ```swift
    /// defaults.set(["Ada", "Grace"], forKey: "Names")
    /// defaults.set(nil, forKey: "Names")  // removes
    /// ```
    public func set(_ value: Any?, forKey key: String) {
        do { try setOrThrow(value, forKey: key) } catch { store.report(error) }
    }

    /// `setValue(_:forKey:)` as `UserDefaults` answers it (key-value coding):
    /// the same as ``set(_:forKey:)-(Any?,_)``.
    ///
    /// ```swift
    /// defaults.setValue(11, forKey: "Volume")
    /// ```
    public func setValue(_ value: Any?, forKey key: String) { set(value, forKey: key) }

    /// Sets `key` to a Foundation-style value, or throws when it is not a
    /// property list (nothing is changed then).
    ///
    /// ```swift
    /// try defaults.setOrThrow(["a": 1] as [String: Any], forKey: "Dict")
    /// ```
    public func setOrThrow(_ value: Any?, forKey key: String) throws(StorageError) {
        guard let value else { setPropertyList(nil, forKey: key); return }
        if let url = value as? URL { set(url, forKey: key); return }
        setPropertyList(try DefaultsConversion.propertyList(value, key: key, domain: domainName, path: ownDomain.path), forKey: key)
    }

    /// Sets an integer.
    public func set(_ value: Int, forKey key: String) { setPropertyList(PropertyList(value), forKey: key) }
    /// Sets a `Float` (stored as a real that is exactly the `Float`).
    public func set(_ value: Float, forKey key: String) { setPropertyList(PropertyList(value), forKey: key) }
    /// Sets a `Double`.
    public func set(_ value: Double, forKey key: String) { setPropertyList(PropertyList(value), forKey: key) }
    /// Sets a boolean.
    public func set(_ value: Bool, forKey key: String) { setPropertyList(PropertyList(value), forKey: key) }

    /// Sets a URL as macOS does: a file URL as its path (with `~` for the
    /// home folder), any other URL as keyed-archive data.
    public func set(_ url: URL?, forKey key: String) {
        guard let url else { setPropertyList(nil, forKey: key); return }
        if url.isFileURL {
            var path = url.path
            if let home = Environment["HOME"], !home.isEmpty, home != "/", path.hasPrefix(home + "/") || path == home {
                path = "~" + path.dropFirst(home.count)
            }
            setPropertyList(.string(path), forKey: key)
        } else {
            setPropertyList(.data(URLArchive.encode(url)), forKey: key)
        }
    }

    /// Removes `key` from this object's domain.
    public func removeObject(forKey key: String) { setPropertyList(nil, forKey: key) }

    /// Merges `defaults` into the registration domain, shared by every
    /// defaults object over the same store (for ``DomainStore/shared``: every
    /// one in the process, as with `UserDefaults`) and never saved. When a value is not a
    /// property list nothing is registered and the store's error handler is
    /// told which key.
    ///
    /// ```swift
    /// defaults.register(defaults: ["NextItemValue": 1, "NextItemName": "Item"])
    /// ```
    public func register(defaults: [String: Any]) {
        do { register(try DefaultsConversion.domain(defaults, name: RegistrationDomain.name, path: "")) } catch { store.report(error) }
    }

    /// Merges typed values into the registration domain.
    public func register(_ defaults: [LiteralString: PropertyList]) {
        searchList.registration.register(defaults)
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
