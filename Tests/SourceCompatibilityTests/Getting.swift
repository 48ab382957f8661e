import Foundation
import OpenDefaults

/// Every typed getter, and the casts apps put after `object(forKey:)`.
func gettingValues(_ defaults: UserDefaults) -> [String] {
    var seen: [String] = []
    if let name = defaults.string(forKey: "CompatName") { seen.append(name) }
    if let name = defaults.object(forKey: "CompatName") as? String { seen.append(name) }
    if let volume = defaults.value(forKey: "CompatVolume") as? Int { seen.append(String(volume)) }
    if let window = defaults.dictionary(forKey: "Window"), let width = window["width"] as? Int { seen.append(String(width)) }
    if let person = defaults.object(forKey: "Person") as? [String: Any], let age = person["age"] as? Int { seen.append(String(age)) }
    if let recent = defaults.stringArray(forKey: "CompatRecent") { seen += recent }
    if let recent = defaults.array(forKey: "CompatRecent") as? [String] { seen += recent }
    if let mixed = defaults.array(forKey: "Mixed"), let first = mixed.first as? Int { seen.append(String(first)) }
    if let blob = defaults.data(forKey: "Blob") { seen.append(String(blob.count)) }
    if let date = defaults.object(forKey: "LastRun") as? Date { seen.append(String(date.timeIntervalSince1970)) }
    if let url = defaults.url(forKey: "Document") { seen.append(url.path) }
    let volume: Int = defaults.integer(forKey: "CompatVolume")
    let balance: Double = defaults.double(forKey: "Balance")
    let gain: Float = defaults.float(forKey: "Gain")
    let muted: Bool = defaults.bool(forKey: "Muted")
    seen += [String(volume), String(balance), String(gain), String(muted)]
    let everything: [String: Any] = defaults.dictionaryRepresentation()
    seen.append(String(everything.count))
    return seen
}
