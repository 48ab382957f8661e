import HTTPMessages
import Foundation
import PropertyList
import Testing
import TestSupport
@testable import SettingsBundle
@testable import SettingsWeb
@_spi(Engine) import OpenDefaults

/// `../shared/corpora/settings`: 25 real bundles with the defaults each must
/// register and the problems each has (`expected.json`, from an independent
/// Python reader). Skipped when `../shared` is absent.
@Suite("Settings-bundle corpus", .timeLimit(.minutes(10)), .requires(.shared))
struct CorpusTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let id: String
        let bundlePath: String
        let expected: [LiteralString: PropertyList]
        let notes: String
        var testDescription: String { id }
    }

    static let cases: [Case] = {
        guard let corpus = settingsCorpus else { return [] }
        let manifest = (try? String(contentsOf: corpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)) ?? ""
        var notes: [String: String] = [:]
        for line in manifest.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.count >= 8 { notes[String(fields[0])] = String(fields[7]) }
        }
        let bundles = corpus.appendingPathComponent("bundles")
        let ids = ((try? FileManager.default.contentsOfDirectory(atPath: bundles.path)) ?? []).sorted()
        return ids.compactMap { id in
            let dir = bundles.appendingPathComponent(id)
            guard let name = (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?.first(where: { $0.hasSuffix(".bundle") }),
                let text = try? String(contentsOf: dir.appendingPathComponent("expected.json"), encoding: .utf8),
                // JSON null (a toggle without FalseValue) has no property-list form: tag it.
                case .dictionary(let expected)? = try? PropertyList(
                    decoding: Array(text.replacingOccurrences(of: ": null", with: ": {\"null\": true}").utf8), format: .json)
            else { return nil }
            return Case(id: id, bundlePath: dir.appendingPathComponent(name).path, expected: expected,
                        notes: notes["bundles/\(id)/\(name)"] ?? "")
        }
    }()

    @Test func theCorpusIsThere() {
        #expect(Self.cases.count == 25)
    }

    @Test("every expected default is registered, no other", .offThePool, arguments: cases)
    func defaults(_ c: Case) throws {
        let bundle = try SettingsBundle(path: c.bundlePath)
        let expected = c.expected["defaults"]!.dictionaryValue!.compactMapValues(typedValue)
        #expect(bundle.defaultValues == expected)
        let withoutDefault = Set(c.expected["keys_without_default"]!.arrayValue!.compactMap(\.stringValue))
        #expect(Set(bundle.keysWithoutDefault) == withoutDefault)
    }

    @Test("panes are walked in the expected order", .offThePool, arguments: cases)
    func panes(_ c: Case) throws {
        let bundle = try SettingsBundle(path: c.bundlePath)
        let missing = Set(c.expected["missing_child_panes"]!.arrayValue!.compactMap(\.stringValue))
        let malformed = Set(c.expected["malformed_panes"]!.arrayValue!.compactMap {
            $0.stringValue.map { String($0.prefix { $0 != ":" }) }
        })
        let visited = c.expected["panes_visited"]!.arrayValue!.compactMap(\.stringValue)
        #expect(bundle.paneOrder == visited.filter { !missing.contains($0) && !malformed.contains($0) })
        for file in missing {
            #expect(bundle.problems.contains { $0.severity == .error && $0.file == file && $0.message.contains("missing child pane") })
        }
        for file in malformed {
            #expect(bundle.problems.contains { $0.severity == .error && $0.file == file && $0.message.contains("malformed") })
        }
        let cycles = c.expected["cycles"]!.arrayValue!.count
        #expect(bundle.problems.filter { $0.message.contains("cycle") }.count == cycles)
    }

    @Test("every malformation in the corpus is reported", .offThePool, arguments: cases)
    func problems(_ c: Case) throws {
        let bundle = try SettingsBundle(path: c.bundlePath)
        for key in c.expected["conflicts"]!.dictionaryValue!.keys.map(\.string) {
            #expect(bundle.problems.contains { $0.key == key && $0.message.contains("different defaults") }, "conflict \(key)")
        }
        // "Root.plist[26] start_menu: DefaultValue 'Main Menu' not among Values"
        for warning in c.expected["warnings"]!.arrayValue!.compactMap(\.stringValue) {
            guard let open = warning.firstIndex(of: "["), let close = warning.firstIndex(of: "]") else { continue }
            let file = String(warning[..<open])
            let index = Int(warning[warning.index(after: open)..<close])
            #expect(bundle.problems.contains { $0.file == file && $0.index == index && $0.severity <= .warning },
                    "\(warning)")
        }
        // Tables the corpus knows do not parse cleanly.
        if let range = c.notes.range(of: "strings tables that do not parse cleanly: ") {
            let list = c.notes[range.upperBound...]
            for item in list.components(separatedBy: "); ") where item.prefix(while: { $0 != " " }).hasSuffix(".strings") {
                let file = item.prefix { $0 != " " }
                #expect(bundle.problems.contains { $0.file == file && $0.severity == .warning }, "table \(file)")
            }
        }
        // Types outside Apple's schema are kept and reported.
        let types = c.expected["specifier_types"]!.dictionaryValue!.keys.map(\.string)
        for type in types where type.hasPrefix("IASK") {
            #expect(bundle.problems.contains { $0.severity == .note && $0.message.hasPrefix(type) }, "\(type)")
            #expect(bundle.panes.values.contains { $0.specifiers.contains { $0.type == type } })
        }
    }

    @Test("device and in-app variants register their own defaults", .offThePool, arguments: cases)
    func variants(_ c: Case) throws {
        let variants = c.expected["variants"]!.dictionaryValue!
        for (file, report) in variants {
            let bundle = try SettingsBundle(path: c.bundlePath, root: file.string)
            let expected = report.dictionaryValue!["defaults"]!.dictionaryValue!.compactMapValues(typedValue)
            #expect(bundle.defaultValues == expected, "\(file)")
        }
        let main = try SettingsBundle(path: c.bundlePath)
        #expect(Set(main.rootVariants) == Set(variants.keys.map(\.string)))
    }

    @Test("every string table is read", .offThePool, arguments: cases)
    func tables(_ c: Case) throws {
        let bundle = try SettingsBundle(path: c.bundlePath)
        let tables = c.expected["strings_tables"]!.arrayValue!.compactMap(\.stringValue).filter { $0.hasSuffix(".strings") }
        for table in tables {
            let parts = table.split(separator: "/")
            let language = String(parts[0].dropLast(6))
            let name = String(parts.last!.dropLast(8))
            let failed = bundle.problems.contains { $0.file == table }
            #expect(failed || bundle.localizations[language]?.tables[name] != nil, "\(table)")
        }
    }
}

/// Every pane of every corpus bundle is served by the Settings app in several languages, and a
/// bare Apply writes nothing.
@Suite("Settings app over the corpus", .timeLimit(.minutes(10)), .requires(.shared))
struct CorpusWebTests {
    @Test("every pane renders", .offThePool, arguments: CorpusTests.cases)
    func everyPaneRenders(_ c: CorpusTests.Case) throws {
        let dir = try TemporaryDirectory()
        let layout = PreferencesLayout(userDirectory: dir.path + "/config", systemDirectory: dir.path + "/sys",
                                       managedDirectory: dir.path + "/managed", hostIdentifier: "host", userName: "tester")
        let store = DomainStore(layout: layout)
        store.setErrorHandler { _ in }
        let domain = "org.corpus." + c.id.replacingOccurrences(of: "_", with: "-")
        let app = SettingsApp(catalog: SettingsCatalog(directory: dir.path + "/none"), extraBundles: [domain: c.bundlePath], store: store)
        let bundle = try SettingsBundle(path: c.bundlePath)
        for file in bundle.paneOrder {
            for language in ["", "de", "fr-FR,fr;q=0.8", "zh-Hans"] {
                let r = app.respond(to: ServerRequest.settings(.get, path: "/apps/" + domain,
                    query: FormData(fields: [("pane", file)]), acceptLanguage: language, host: "127.0.0.1"))
                #expect(r.status == 200, "\(file) \(language)")
                #expect(!r.text.contains("<script"), "\(file)")
            }
            // Apply with no field changed writes nothing.
            let r = app.respond(to: ServerRequest.settings(.post, path: "/apps/" + domain,
                query: FormData(fields: [("pane", file)]), form: FormData(fields: [("token", app.policy.formToken), ("action", "apply")]),
                host: "127.0.0.1"))
            #expect(r.status == 303, "\(file)")
        }
        #expect(!FileManager.default.fileExists(atPath: layout.path(for: domain, scope: .currentUser)))
    }
}
