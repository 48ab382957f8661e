import Testing
@testable import UbiquityServer

/// A request path's parts, as the server's routes read them.
@Suite("A request path's parts")
struct PathPartsTests {
    @Test("the parts are split(separator: \"/\", omittingEmptySubsequences: false)'s, the first five kept, every one counted")
    func partsAsSplitGivesThem() {
        let paths = ["", "/", "//", "/v1", "/v1/", "/v1/health", "/v1/stores/com.example.app/commit", "/v1/stores//commit",
                     "/v1/stores/a/commit/", "/a/b/c/d/e/f/g", "v1/health", "/v1/stores/caf\u{E9}/changes", "/\u{1F600}/x"]
        for path in paths {
            let parts = PathParts(path)
            let split = path.split(separator: "/", omittingEmptySubsequences: false)
            #expect(parts.count == split.count, "\(path)")
            for i in 0..<5 {
                let expected = i < split.count ? split[i] : ""
                #expect(Array(parts[i].unicodeScalars) == Array(expected.unicodeScalars), "\(path) part \(i)")
                #expect(parts.isEmpty(i) == expected.isEmpty, "\(path) part \(i)")
            }
        }
    }

    @Test("a part is a name only byte for byte: a name that looks the same but is spelled otherwise is not it")
    func namesByBytes() {
        let parts = PathParts("/v1/stores/caf\u{E9}/commit")
        #expect(parts.part(1, is: "v1") && parts.part(2, is: "stores") && parts.part(4, is: "commit"))
        #expect(!parts.part(4, is: "commits") && !parts.part(4, is: "commi") && !parts.part(0, is: "v1"))
        #expect(parts.part(3, is: "caf\u{E9}") && !parts.part(3, is: "cafe\u{301}"))
        #expect(!PathParts("/v1/stores/cafe\u{301}/commit").part(3, is: "caf\u{E9}"))
        // Past the path's parts, a part is empty and is no name.
        #expect(!PathParts("/v1").part(2, is: "stores") && PathParts("/v1").isEmpty(4))
    }

    @Test("route labels: one of a fixed set, never a part of the path")
    func labels() {
        let cases: [(String, String, String)] = [
            ("GET", "/healthz", "healthz"), ("GET", "/readyz", "readyz"), ("GET", "/v1/health", "health"),
            ("GET", "/v1/account", "account"), ("GET", "/v1/events", "events"), ("POST", "/v1/fleet/enroll", "fleet/enroll"),
            ("POST", "/v1/stores/s/commit", "stores/commit"), ("GET", "/v1/stores/s/changes", "stores/changes"),
            ("GET", "/v1/stores/s/events", "stores/events"), ("GET", "/v1/stores//commit", "other"),
            ("GET", "/v1/stores/s/other", "other"), ("GET", "/v2/health", "other"), ("GET", "/v1/stores/s/commit/x", "other"),
        ]
        for (method, path, label) in cases {
            #expect(UbiquityHTTPServer.routeLabel(method, path) == label, "\(method) \(path)")
        }
    }
}
