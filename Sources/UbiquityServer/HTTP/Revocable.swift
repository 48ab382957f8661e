/// Something open with a token that ends when the token stops being valid:
/// an event stream, a long poll (``TokenBook``).
protocol Revocable: AnyObject, Sendable {
    /// Ends it (the token was revoked, rotated, or its account deleted).
    func end()
}

extension StreamSubscription: Revocable {}
