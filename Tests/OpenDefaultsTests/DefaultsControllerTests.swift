import Foundation
import Synchronization
import Testing
@_spi(Engine) @testable import OpenDefaults
import PropertyList

/// `DefaultsController`: AppKit's `NSUserDefaultsController` semantics.
@Suite("DefaultsController", .timeLimit(.minutes(10)))
struct DefaultsControllerTests {
    let sandbox: Sandbox
    let store: DomainStore
    let defaults: Defaults

    init() throws {
        sandbox = try Sandbox()
        store = sandbox.makeStore()
        defaults = Defaults(domainName: "com.example.controller", store: store, arguments: [])
    }

    @Test func valuesFallBackFromEditsToDefaultsToInitialValues() {
        let controller = DefaultsController(defaults: defaults, initialValues: ["warp": "Engaged", "speed": 5])
        #expect(controller.values["warp"] == "Engaged")
        defaults.set("Disabled" as PropertyList, forKey: "warp")
        #expect(controller.values["warp"] == "Disabled")
        controller.appliesImmediately = false
        controller.values["warp"] = "Engaged"
        #expect(controller.values["warp"] == "Engaged")
        #expect(defaults.propertyList(forKey: "warp") == "Disabled")
        #expect(controller.values["nothing"] == nil)
    }

    @Test func appliesImmediatelyByDefault() {
        let controller = DefaultsController(defaults: defaults)
        #expect(controller.appliesImmediately)
        controller.values["name"] = "Ada"
        #expect(defaults.propertyList(forKey: "name") == "Ada")
        #expect(!controller.hasUnappliedChanges)
    }

    @Test func saveWritesEditsDurably() throws {
        let controller = DefaultsController(defaults: defaults)
        controller.appliesImmediately = false
        controller.values["protocol"] = "IMAP"
        controller.values["old"] = nil
        #expect(controller.hasUnappliedChanges)
        #expect(controller.unappliedKeys == ["old", "protocol"])
        #expect(try !FileManager.default.fileExists(atPath: sandbox.path("com.example.controller"))
            || sandbox.fileValue("com.example.controller")["protocol"] == nil)
        #expect(controller.save())
        #expect(!controller.hasUnappliedChanges)
        #expect(defaults.propertyList(forKey: "protocol") == "IMAP")
        // save() flushes: the file holds the value when it returns.
        #expect(try sandbox.fileValue("com.example.controller")["protocol"] == "IMAP")
    }

    @Test func revertDiscardsEdits() {
        defaults.set(3 as PropertyList, forKey: "speed")
        let controller = DefaultsController(defaults: defaults)
        controller.appliesImmediately = false
        controller.values["speed"] = 9
        controller.revert()
        #expect(!controller.hasUnappliedChanges)
        #expect(controller.values["speed"] == 3)
        #expect(defaults.propertyList(forKey: "speed") == 3)
    }

    @Test func revertToInitialValuesIsAnEditUntilSaved() {
        defaults.set("Disabled" as PropertyList, forKey: "warp")
        defaults.set(9 as PropertyList, forKey: "warpfactor")
        let controller = DefaultsController(defaults: defaults, initialValues: ["warp": "Engaged", "warpfactor": 5])
        controller.appliesImmediately = false
        controller.revertToInitialValues()
        #expect(controller.values["warp"] == "Engaged")
        #expect(controller.values["warpfactor"] == 5)
        #expect(defaults.propertyList(forKey: "warp") == "Disabled")
        controller.save()
        #expect(defaults.propertyList(forKey: "warp") == "Engaged")
        #expect(defaults.propertyList(forKey: "warpfactor") == 5)
        // Only the keys asked for.
        defaults.set("Disabled" as PropertyList, forKey: "warp")
        defaults.set(7 as PropertyList, forKey: "warpfactor")
        controller.revertToInitialValues(forKeys: ["warpfactor"])
        controller.save()
        #expect(defaults.propertyList(forKey: "warp") == "Disabled")
        #expect(defaults.propertyList(forKey: "warpfactor") == 5)
    }

    @Test func observersHearEditsRevertsAndOtherWriters() {
        let controller = DefaultsController(defaults: defaults, initialValues: ["warp": "Engaged"])
        controller.appliesImmediately = false
        let seen = Mutex<[String]>([])
        let token = controller.observe("warp") { old, new in
            seen.withLock { $0.append("\(old?.stringValue ?? "nil")→\(new?.stringValue ?? "nil")") }
        }
        controller.values["warp"] = "Disabled"
        controller.revert()
        // Another writer (through the defaults) while no edit hides the key.
        defaults.set("Disabled" as PropertyList, forKey: "warp")
        // An edit hides later changes from the defaults until saved or reverted.
        controller.values["warp"] = "Engaged"
        defaults.set("Off" as PropertyList, forKey: "warp")
        #expect(seen.withLock { $0 } == ["Engaged→Disabled", "Disabled→Engaged", "Engaged→Disabled", "Disabled→Engaged"])
        token.cancel()
        controller.values["warp"] = "X"
        #expect(seen.withLock { $0.count } == 4)
    }
}
