import Foundation
import Testing
import TestSupport

/// Whether headless Chromium, its driver and Selenium are installed (`.ci/run` installs them).
let browserAvailable: Bool = {
    let fm = FileManager.default
    guard fm.isExecutableFile(atPath: "/usr/bin/chromium"), fm.isExecutableFile(atPath: "/usr/bin/chromedriver") else { return false }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", "-c", "import selenium"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return false }
    p.waitUntilExit()
    return p.terminationStatus == 0
}()

extension Requirement {
    /// Headless Chromium, its driver and Selenium (CI sets `OPENDEFAULTS_REQUIRE_BROWSER=1`).
    static let browser = Requirement("BROWSER", "needs Chromium, its driver and Selenium (as root: apt-get install chromium chromium-driver; pip install selenium)") { browserAvailable }
}

/// The Settings app in headless Chromium, driven by Selenium: the
/// AppSettings pane's toggle, slider and multi-value changed and applied and
/// checked with the `defaults` tool; a child pane and back; a forced key
/// disabled; a tampered form refused; a hostile value shown escaped; Reset
/// to Defaults; German strings for a German browser. Screenshots of each
/// pane are kept in `.build/artifacts/browser-screenshots/`.
@Suite("Settings app in a real browser", .timeLimit(.minutes(10)))
struct BrowserTests {
    @Test(.requires(.browser))
    func appSettingsInChromium() throws {
        let bundle = repositoryRoot.appendingPathComponent("Examples/AppSettings/Settings.bundle").path
        let shots = repositoryRoot.appendingPathComponent(".build/artifacts/browser-screenshots").path
        let (status, text) = try runPythonScript("Tests/BrowserTests/settings_app_in_chromium.py", [productsDirectory.path, bundle, shots])
        #expect(status == 0, "\(text)")
        #expect(text.contains("checks passed"))
        for shot in ["02-appsettings-root.png", "05-more-settings.png"] {
            #expect(FileManager.default.fileExists(atPath: shots + "/" + shot))
        }
    }
}
