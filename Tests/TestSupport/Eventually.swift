import Foundation

/// Polls `condition` every 5 ms until it holds or `timeout` passes; its last answer.
///
/// ```swift
/// #expect(eventually { defaults.string(forKey: "k") == "v" })
/// ```
public func eventually(timeout: Duration = .seconds(5), _ condition: () throws -> Bool) rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return try condition()
}
