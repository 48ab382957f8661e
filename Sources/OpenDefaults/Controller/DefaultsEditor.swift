/// Something that holds an edit before it reaches a ``DefaultsController``
/// (AppKit's `NSEditor`): a text field being typed in, a form not yet sent.
///
/// An editor tells the controller with
/// ``DefaultsController/objectDidBeginEditing(_:)`` when it starts holding
/// an edit; ``DefaultsController/commitEditing()`` and
/// ``DefaultsController/discardEditing()`` then reach it.
///
/// ```swift
/// final class NameField: DefaultsEditor {
///     let controller: DefaultsController
///     let text = Mutex("")
///     init(controller: DefaultsController) { self.controller = controller }
///     func commitEditing() -> Bool {
///         let t = text.withLock { $0 }
///         guard !t.isEmpty else { return false }  // refuse an empty name
///         controller.values["Name"] = .string(t)
///         return true
///     }
///     func discardEditing() { text.withLock { $0 = "" } }
/// }
/// ```
public protocol DefaultsEditor: AnyObject, Sendable {
    /// Hands the pending edit to the controller; false when it cannot (the
    /// edit is kept and the editor stays registered).
    func commitEditing() -> Bool
    /// Drops the pending edit.
    func discardEditing()
}
