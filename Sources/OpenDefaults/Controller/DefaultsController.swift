import PlatformIO
import SharedTables
public import PropertyList
import Synchronization

/// A controller between a user interface and a ``Defaults`` object, as
/// AppKit's `NSUserDefaultsController`: edits go through ``values`` and,
/// unless ``appliesImmediately``, wait for ``save()`` or ``revert()``.
///
/// ``initialValues`` answer keys that no domain has (the controller's own
/// registration), and ``revertToInitialValues(forKeys:)`` puts them back.
///
/// ```swift
/// let controller = DefaultsController(defaults: .standard, initialValues: ["warp": "Engaged"])
/// controller.appliesImmediately = false
/// controller.values["warp"] = "Disabled"
/// controller.hasUnappliedChanges  // true; Defaults.standard still says "Engaged"
/// controller.save()               // now it is written (and flushed durably)
/// ```
public final class DefaultsController: Sendable {
    /// The defaults object edited.
    public let defaults: Defaults

    struct State {
        var initialValues: [LiteralString: PropertyList]
        var appliesImmediately = true
        /// Unapplied edits: a value, or nil for a removal.
        var pending: [LiteralString: PropertyList?] = [:]
        var observers: [LiteralString: ObserverList<@Sendable (PropertyList?, PropertyList?) -> Void>] = [:]
        var defaultsTokens: [LiteralString: ObservationToken] = [:]
        /// Editors that began editing and have not ended (AppKit's `NSEditorRegistration`).
        var editors: [ObjectIdentifier: any DefaultsEditor] = [:]
    }
    let state: Lock<State>

    private static let sharedInstance = Lock<DefaultsController?>(nil)

    /// The shared controller over ``Defaults/standard``; after
    /// ``Defaults/resetStandardUserDefaults()`` it is a new controller over
    /// the new standard object.
    ///
    /// ```swift
    /// DefaultsController.shared.values["Volume"] = 7
    /// ```
    public static var shared: DefaultsController {
        let standard = Defaults.standard
        return sharedInstance.withLock { s in
            if let existing = s, existing.defaults === standard { return existing }
            let created = DefaultsController(defaults: standard)
            s = created
            return created
        }
    }

    /// Creates a controller over `defaults` with `initialValues`.
    public init(defaults: Defaults, initialValues: [LiteralString: PropertyList] = [:]) {
        self.defaults = defaults
        self.state = Lock(State(initialValues: initialValues))
    }

    /// Values for keys that no domain of ``defaults`` has; the values
    /// ``revertToInitialValues(forKeys:)`` restores.
    public var initialValues: [LiteralString: PropertyList] {
        get { state.withLock { $0.initialValues } }
        set { state.withLock { $0.initialValues = newValue } }
    }

    /// Whether an edit is written to ``defaults`` at once (true, as AppKit's
    /// default) or waits for ``save()``.
    public var appliesImmediately: Bool {
        get { state.withLock { $0.appliesImmediately } }
        set { state.withLock { $0.appliesImmediately = newValue } }
    }

    /// Whether there are edits not yet saved.
    public var hasUnappliedChanges: Bool { state.withLock { !$0.pending.isEmpty } }

    /// The keys with unsaved edits.
    public var unappliedKeys: [String] { state.withLock { $0.pending.keys.sorted().map(\.string) } }

    /// The values as the interface shows them: an unsaved edit, else the
    /// defaults' value, else the initial value.
    ///
    /// ```swift
    /// controller.values["warpfactor"] = 7
    /// controller.values["warpfactor"]  // 7, saved or not
    /// ```
    public var values: Values { Values(controller: self) }

    /// The proxy behind ``values``: read and written by key.
    public struct Values: Sendable {
        let controller: DefaultsController

        /// The value shown for `key`; setting it edits (nil removes the key).
        public subscript(key: String) -> PropertyList? {
            get { controller.value(forKey: key) }
            nonmutating set { controller.setValue(newValue, forKey: key) }
        }

        /// The value shown for `key`, as `Any` (Foundation's bridged types).
        public func value(forKey key: String) -> Any? { controller.value(forKey: key)?.bridgedValue }
    }

    /// The value shown for `key`.
    public func value(forKey key: String) -> PropertyList? {
        let (edit, initial) = state.withLock { ($0.pending[key], $0.initialValues[key]) }
        if let edit { return edit ?? initial }
        return defaults.propertyList(forKey: key) ?? initial
    }

    /// Edits `key`: written at once when ``appliesImmediately``, else kept until ``save()``.
    public func setValue(_ value: PropertyList?, forKey key: String) {
        let old = self.value(forKey: key)
        let immediate = state.withLock { s -> Bool in
            if !s.appliesImmediately { s.pending[key] = .some(value) }
            return s.appliesImmediately
        }
        if immediate {
            defaults.setPropertyList(value, forKey: key)  // observers hear it through the defaults
        } else {
            notify(key, old: old, new: self.value(forKey: key))
        }
    }

    /// Writes every unsaved edit to ``defaults`` and flushes them durably.
    ///
    /// - Returns: false when the domain could not be written (the edits are
    ///   in the defaults' memory and will be retried, as with `set`).
    @discardableResult
    public func save() -> Bool {
        let edits = state.withLock { s -> [LiteralString: PropertyList?] in
            defer { s.pending = [:] }
            return s.pending
        }
        for key in edits.keys.sorted() { defaults.setPropertyList(edits[key]!, forKey: key.string) }
        return defaults.synchronize()
    }

    /// Discards every unsaved edit.
    public func revert() {
        let keys = unappliedKeys
        let before = keys.map { value(forKey: $0) }
        state.withLock { $0.pending = [:] }
        for (key, old) in zip(keys, before) { notify(key, old: old, new: value(forKey: key)) }
    }

    /// Sets `keys` (all of ``initialValues`` when nil) back to their initial
    /// values: an edit like any other, so it waits for ``save()`` unless
    /// ``appliesImmediately``. A key without an initial value is removed.
    public func revertToInitialValues(forKeys keys: [String]? = nil) {
        let initial = initialValues
        for key in keys ?? initial.keys.sorted().map(\.string) { setValue(initial[key], forKey: key) }
    }

    // MARK: - Editors

    /// AppKit's `objectDidBeginEditing(_:)`: `editor` holds an edit not yet
    /// handed to the controller (a text field being typed in).
    ///
    /// ```swift
    /// controller.objectDidBeginEditing(nameField)
    /// ```
    public func objectDidBeginEditing(_ editor: any DefaultsEditor) {
        state.withLock { $0.editors[ObjectIdentifier(editor)] = editor }
    }

    /// AppKit's `objectDidEndEditing(_:)`: `editor` has nothing pending any more.
    public func objectDidEndEditing(_ editor: any DefaultsEditor) {
        state.withLock { $0.editors[ObjectIdentifier(editor)] = nil }
    }

    /// AppKit's `commitEditing()`: asks every editor that began editing to
    /// hand its edit to the controller (through ``values``). False when one
    /// refuses (an invalid entry); the others have committed. Committed edits
    /// are then like any other: written at once when ``appliesImmediately``,
    /// else kept for ``save()``.
    ///
    /// ```swift
    /// if controller.commitEditing() { controller.save() }
    /// ```
    @discardableResult
    public func commitEditing() -> Bool {
        let editors = state.withLock { s in s.editors.sorted { $0.key < $1.key }.map(\.value) }
        var committed = true
        for editor in editors {
            if editor.commitEditing() {
                objectDidEndEditing(editor)
            } else {
                committed = false
            }
        }
        return committed
    }

    /// AppKit's `discardEditing()`: every editor that began editing drops
    /// its edit; nothing reaches the controller or the defaults.
    ///
    /// ```swift
    /// controller.discardEditing()
    /// ```
    public func discardEditing() {
        let editors = state.withLock { s -> [any DefaultsEditor] in
            defer { s.editors = [:] }
            return s.editors.sorted { $0.key < $1.key }.map(\.value)
        }
        for editor in editors { editor.discardEditing() }
    }

    // MARK: - Observing

    /// Calls `handler` each time the value shown for `key` changes: an edit
    /// through the controller, or a change to the defaults (by any process)
    /// that no unsaved edit hides. Observation ends when the token is released.
    public func observe(_ key: String, _ handler: @escaping @Sendable (_ old: PropertyList?, _ new: PropertyList?) -> Void) -> ObservationToken {
        let (id, needsDefaults) = state.withLock { s -> (UInt64, Bool) in
            let id = s.observers[key, default: ObserverList()].add(handler)
            return (id, s.defaultsTokens[key] == nil)
        }
        if needsDefaults {
            let token = defaults.observe(key) { [weak self] old, new in
                guard let self else { return }
                let (hidden, initial) = self.state.withLock { ($0.pending[key] != nil, $0.initialValues[key]) }
                if !hidden { self.notify(key, old: old ?? initial, new: new ?? initial) }
            }
            state.withLock { $0.defaultsTokens[key] = token }
        }
        return ObservationToken { [weak self] in
            guard let self else { return }
            let token = self.state.withLock { s -> ObservationToken? in
                s.observers[key]?.remove(id)
                guard s.observers[key]?.isEmpty == true else { return nil }
                s.observers[key] = nil
                return s.defaultsTokens.removeValue(forKey: key)
            }
            token?.cancel()
        }
    }

    func notify(_ key: String, old: PropertyList?, new: PropertyList?) {
        guard old != new else { return }
        let handlers = state.withLock { $0.observers[key]?.handlers ?? [] }
        for handler in handlers { handler(old, new) }
    }
}
