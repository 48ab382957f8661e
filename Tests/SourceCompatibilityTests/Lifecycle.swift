import Foundation
import OpenDefaultsFoundation
import OpenDefaults

/// Making defaults objects and observing them, as an app does at launch.
/// (Compiled, not run: it uses the user's real preferences.)
func appLaunch() -> [Any] {
    let standard = UserDefaults.standard
    let fresh = UserDefaults()
    let group = UserDefaults(suiteName: "group.com.example.shared")
    let none = UserDefaults(suiteName: UserDefaults.globalDomain)  // nil, as on Apple platforms
    UserDefaults.resetStandardUserDefaults()
    let token = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: nil, queue: nil) { note in
        _ = note.object as? UserDefaults
    }
    let limit: Notification.Name = UserDefaults.sizeLimitExceededNotification
    return [standard, fresh, group as Any, none as Any, token, limit]
}
