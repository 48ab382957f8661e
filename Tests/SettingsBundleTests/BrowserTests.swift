import Foundation
import Testing
import TestSupport

/// The Settings app in headless Chromium, driven by Selenium: the
/// AppSettings pane's toggle, slider and multi-value changed and applied and
/// checked with the `defaults` tool; a child pane and back; a forced key
/// disabled; a tampered form refused; a hostile value shown escaped; Reset
/// to Defaults; German strings for a German browser. Screenshots of each
/// pane are kept in `.build/artifacts/browser-screenshots/`.
@Suite("Settings app in a real browser", .offThePool, .exclusive(.crashes), .timeLimit(.minutes(10)))
struct BrowserTests {
    @Test(.requires(.chromium))
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
