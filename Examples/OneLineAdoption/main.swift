// Code written for Foundation's `UserDefaults`, moved to OpenDefaults by the two
// lines below (the migration guide's program; `swift build` compiles it, and
// `AdoptionTests` runs it and reads back what reached the disk).
import OpenDefaultsFoundation
typealias UserDefaults = OpenUserDefaults

// Everything below is unchanged `UserDefaults` code.
import Foundation

let defaults = UserDefaults.standard
defaults.register(defaults: ["Volume": 5, "Theme": "light"])

final class Counter: @unchecked Sendable { var value = 0 }
let posts = Counter()
let observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: defaults, queue: nil) { _ in
    posts.value += 1
}

defaults.set(11, forKey: "Volume")
defaults.set("dark", forKey: "Theme")
defaults.set(["a", "b"], forKey: "Recent")
defaults.set(Date(timeIntervalSince1970: 0), forKey: "LastOpened")

// A suite: an app group's shared domain.
guard let group = UserDefaults(suiteName: "group.com.example.shared") else { fatalError("no suite") }
group.set(true, forKey: "SharedFlag")
group.set(["count": 3], forKey: "Stats")

func show(_ d: UserDefaults, _ key: String) -> String { "\(key)=\(d.object(forKey: key).map { "\($0)" } ?? "nil")" }
print(show(defaults, "Volume"), show(defaults, "Theme"), show(group, "SharedFlag"))
print("posts=\(posts.value)")
print("standard-is-open=\(type(of: defaults) == OpenUserDefaults.self)")
NotificationCenter.default.removeObserver(observer)
