// Test helper: runs the same UserDefaults code against swift-corelibs-
// foundation's `UserDefaults` or OpenDefaults' `OpenUserDefaults`, printing
// one line per key and getter, so a test can require identical output.
//
//   userdefaults-probe write foundation|open   set every sample, print every getter
//   userdefaults-probe read foundation|open    print every getter (a new process: from disk)
//   userdefaults-probe standard                the shared objects follow resetStandardUserDefaults()
import Foundation
import OpenDefaults
import OpenDefaultsFoundation
import PropertyList

/// The samples, each stored through the `set(_:forKey:)` overload its type picks.
func writeSamples(_ d: UserDefaults) {
    d.set(42, forKey: "int")
    d.set(-7, forKey: "negative")
    d.set(Int.max, forKey: "intMax")
    d.set(3.5, forKey: "real")
    d.set(3.0, forKey: "realWhole")
    d.set(1e20, forKey: "realLarge")
    d.set(-1e20, forKey: "realNegLarge")
    d.set(Double.nan, forKey: "realNaN")
    d.set(-2.7, forKey: "realNeg")
    d.set(12.34 as Float, forKey: "float")
    d.set(true, forKey: "true")
    d.set(false, forKey: "false")
    d.set("12", forKey: "s12")
    d.set("YES", forKey: "sYES")
    d.set("3.5", forKey: "s35")
    d.set("0.5", forKey: "s05")
    d.set(" 42abc", forKey: "s42abc")
    d.set("tx", forKey: "stx")
    d.set("-0009", forKey: "sNeg")
    d.set("", forKey: "sEmpty")
    d.set(Date(timeIntervalSince1970: 0), forKey: "date")
    d.set(Data([1, 2, 3]), forKey: "data")
    d.set([1, "a"] as [Any], forKey: "array")
    d.set(["x", "y"], forKey: "strings")
    d.set(["a": 1, "b": "two"] as [String: Any], forKey: "dict")
    d.set(URL(fileURLWithPath: "/tmp/probe"), forKey: "url")
    d.set(NSNumber(value: true), forKey: "nsBool")
    d.set(NSNumber(value: 2.5 as Float), forKey: "nsFloat")
    d.set(NSNumber(value: 9), forKey: "nsInt")
    d.set("hi" as NSString, forKey: "nsString")
    d.set(NSData(bytes: [7, 8] as [UInt8], length: 2), forKey: "nsData")
    d.set(NSURL(fileURLWithPath: "/tmp/nsurl"), forKey: "nsURL")
    d.register(defaults: ["registered": "reg", "int": 1])
}

let keys = ["int", "negative", "intMax", "real", "realWhole", "realLarge", "realNegLarge", "realNaN", "realNeg", "float", "true", "false", "s12", "sYES", "s35", "s05",
    "s42abc", "stx", "sNeg", "sEmpty", "date", "data", "array", "strings", "dict", "url", "nsBool", "nsFloat", "nsInt", "nsString",
    "nsData", "nsURL", "registered", "absent"]
/// Keys whose value is data: corelibs' `url(forKey:)` stops the process on data that is not a keyed archive.
let dataKeys: Set = ["data", "nsData"]

func describe(_ value: Any?) -> String {
    guard let value else { return "nil" }
    do { return "\(try PropertyList(bridging: value))" } catch { return "not a property list: \(type(of: value))" }
}

func printGetters(_ d: UserDefaults) {
    for k in keys {
        var parts = [
            "object=\(describe(d.object(forKey: k)))",
            "string=\(d.string(forKey: k) ?? "nil")",
            "integer=\(d.integer(forKey: k))",
            "double=\(d.double(forKey: k))",
            "float=\(d.float(forKey: k))",
            "bool=\(d.bool(forKey: k))",
            "data=\(d.data(forKey: k).map { Array($0).description } ?? "nil")",
            "array=\(describe(d.array(forKey: k)))",
            "stringArray=\(d.stringArray(forKey: k)?.description ?? "nil")",
            "dictionary=\(describe(d.dictionary(forKey: k)))",
        ]
        // A stored Float comes back from object(forKey:) as a Float in corelibs (and ours).
        if k == "float" { parts.append("objectAsFloat=\((d.object(forKey: k) as? Float).map { "\($0)" } ?? "nil")") }
        if !dataKeys.contains(k) { parts.append("url=\(d.url(forKey: k)?.absoluteURL.path ?? "nil")") }
        print(k, parts.joined(separator: " | "))
    }
}

func implementation(_ name: String) -> UserDefaults {
    switch name {
    case "foundation": return UserDefaults.standard
    case "open": return OpenUserDefaults.standard
    default:
        FileHandle.standardError.write(Data("unknown implementation \(name)\n".utf8))
        exit(2)
    }
}

let args = CommandLine.arguments
guard args.count >= 2 else { FileHandle.standardError.write(Data("usage: userdefaults-probe write|read|standard [foundation|open]\n".utf8)); exit(2) }
switch args[1] {
case "write":
    let d = implementation(args[2])
    writeSamples(d)
    printGetters(d)
    guard d.synchronize() else { print("synchronize failed"); exit(1) }
case "read":
    let d = implementation(args[2])
    d.register(defaults: ["registered": "reg", "int": 1])
    printGetters(d)
case "standard":
    // Defaults.standard, DefaultsController.shared and OpenUserDefaults.standard
    // are shared until resetStandardUserDefaults(), then new.
    let first = Defaults.standard
    let controller = DefaultsController.shared
    let wrapped = OpenUserDefaults.standard
    var failures: [String] = []
    if Defaults.standard !== first { failures.append("standard is not shared") }
    if DefaultsController.shared !== controller || controller.defaults !== first { failures.append("the shared controller is not over standard") }
    if OpenUserDefaults.standard !== wrapped || wrapped.defaults !== first { failures.append("OpenUserDefaults.standard is not over standard") }
    if Defaults() === first { failures.append("Defaults() is the shared object") }
    if Defaults().domainName != first.domainName { failures.append("Defaults() is another domain") }
    first.set("before", forKey: "ResetProbe")
    Defaults.resetStandardUserDefaults()
    let second = Defaults.standard
    if second === first { failures.append("reset kept the standard object") }
    if DefaultsController.shared.defaults !== second { failures.append("the shared controller did not follow the reset") }
    if OpenUserDefaults.standard.defaults !== second { failures.append("OpenUserDefaults.standard did not follow the reset") }
    if second.string(forKey: "ResetProbe") != "before" { failures.append("the value written before the reset is gone") }
    if UserDefaults.globalDomain != Defaults.globalDomain || UserDefaults.argumentDomain != Defaults.argumentDomain
        || UserDefaults.registrationDomain != Defaults.registrationDomain
    {
        failures.append("domain constants differ from Foundation's")
    }
    print(failures.isEmpty ? "ok" : failures.joined(separator: "\n"))
    exit(failures.isEmpty ? 0 : 1)
default:
    FileHandle.standardError.write(Data("unknown mode \(args[1])\n".utf8))
    exit(2)
}
