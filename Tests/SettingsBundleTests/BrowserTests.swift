import Foundation
import Testing

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

/// CI sets this so that a missing browser fails instead of skipping.
let browserRequired = ProcessInfo.processInfo.environment["OPENDEFAULTS_REQUIRE_BROWSER"] != nil

/// The Settings app in headless Chromium, driven by Selenium: the
/// AppSettings pane's toggle, slider and multi-value changed and applied and
/// checked with the `defaults` tool; a child pane and back; a forced key
/// disabled; a tampered form refused; a hostile value shown escaped; Reset
/// to Defaults; German strings for a German browser. Screenshots of each
/// pane are kept in `.build/artifacts/browser-screenshots/`.
@Suite("Settings app in a real browser", .timeLimit(.minutes(10)))
struct BrowserTests {
    @Test(.enabled(if: browserAvailable || browserRequired, "needs chromium, chromium-driver and selenium (.ci/run installs them)"))
    func appSettingsInChromium() throws {
        #expect(browserAvailable, "chromium, chromium-driver or selenium is missing")
        guard browserAvailable else { return }
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
