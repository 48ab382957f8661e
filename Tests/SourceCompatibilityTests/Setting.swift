import Foundation
import OpenDefaults

/// Every spelling of `set(_:forKey:)` an app uses.
func settingValues(_ defaults: UserDefaults) {
    defaults.set(nil, forKey: "Removed")
    defaults.set(11, forKey: "CompatVolume")
    defaults.set(0.5, forKey: "Balance")
    defaults.set(Float(0.25), forKey: "Gain")
    defaults.set(true, forKey: "Muted")
    defaults.set("Ada", forKey: "CompatName")
    defaults.set(["a", "b"], forKey: "CompatRecent")
    defaults.set(["width": 800, "height": 600], forKey: "Window")
    defaults.set(["name": "Ada", "age": 36] as [String: Any], forKey: "Person")
    defaults.set([1, "two", 3.0] as [Any], forKey: "Mixed")
    defaults.set(Date(timeIntervalSince1970: 0), forKey: "LastRun")
    defaults.set(Data([1, 2, 3]), forKey: "Blob")
    defaults.set(URL(fileURLWithPath: "/tmp/file"), forKey: "Document")
    defaults.set(URL(string: "https://example.com"), forKey: "Homepage")
    defaults.set(Int64(1) << 40, forKey: "Big")
    defaults.set(UInt8(7), forKey: "Small")
    defaults.set(Int32(-3), forKey: "Signed")
    defaults.set(NSNumber(value: true), forKey: "Boxed")
    defaults.set("boxed" as NSString, forKey: "BoxedString")
    let optional: String? = nil
    defaults.set(optional, forKey: "MaybeName")
    let any: Any = 42
    defaults.set(any, forKey: "Any")
    defaults.setValue(12, forKey: "CompatVolume")
    defaults.setValue(nil, forKey: "CompatVolume")
    defaults.removeObject(forKey: "Mixed")
}
