import ConfigurationProfiles
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Engine) package import OpenDefaults
import PlatformIO
import SharedTables
import PropertyList
package import SettingsBundle
package import HTTPMessages
import Synchronization

/// The Settings app: pages for the installed applications and their panes,
/// and the forms that change their defaults. It knows nothing of HTTP
/// servers; the `settings serve` command puts it behind Hummingbird.
///
/// Routes:
/// - `GET /`: the installed applications.
/// - `GET /apps/<domain>[?pane=<file>]`: a pane (the root without `pane`).
/// - `POST /apps/<domain>[?pane=<file>]`: `action=apply|revert|reset` and the pane's fields.
/// - `GET /apps/<domain>/image?name=<file>`: an image from the bundle (slider images).
///
/// ```swift
/// let app = SettingsApp(catalog: SettingsCatalog())
/// let page = app.respond(to: ServerRequest.settings(.get, path: "/", host: "localhost"))
/// ```
package final class SettingsApp: Sendable {
    /// Where installed bundles are found.
    package let catalog: SettingsCatalog
    /// Bundles served without installing, by domain (`settings serve --bundle`).
    package let extraBundles: [String: String]
    /// Who may use the app and how requests prove it (checked first, for every request).
    package let policy: AccessPolicy
    let store: DomainStore
    let defaultsByDomain = Mutex<[String: Defaults]>([:])

    /// Creates the app over `catalog` and `extraBundles` (domain → bundle path),
    /// writing through `store`, answering what `policy` admits (loopback
    /// names only, by default).
    package init(catalog: SettingsCatalog, extraBundles: [String: String] = [:], store: DomainStore = .shared,
                policy: AccessPolicy = .loopback()) {
        self.catalog = catalog
        self.extraBundles = extraBundles
        self.store = store
        self.policy = policy
    }

    /// The domains the app lists.
    package var domains: [String] { Array(Set(catalog.installedDomains()).union(extraBundles.keys)).sorted() }

    func bundlePath(for domain: String) -> String? {
        if let path = extraBundles[domain] { return path }
        return catalog.isInstalled(domain) ? catalog.bundlePath(forDomain: domain) : nil
    }

    /// The defaults object the values of `domain` are written through (no
    /// argument domain: the server's own command line is not the app's).
    func defaults(for domain: String) -> Defaults {
        if let d = defaultsByDomain.withLock({ $0[domain] }) { return d }
        let created = Defaults(domainName: domain, store: store, arguments: [])
        return defaultsByDomain.withLock { cache in
            if let d = cache[domain] { return d }
            cache[domain] = created
            return created
        }
    }

    /// Answers one request.
    package func respond(to request: ServerRequest) -> ServerResponse {
        guard request.isRead || request.method == "POST" else {
            return ServerResponse(status: 405, contentType: "text/plain; charset=utf-8", headers: ["Allow": "GET, POST"],
                                  body: Array("The Settings app answers GET and POST, not \(request.method).\n".utf8))
        }
        // The query and the form are decoded once, here, for the policy and the pages.
        let query = request.queryFields
        let form = request.form
        if let refusal = policy.refusal(for: request, query: query, form: form) { return refusal }
        let languages = LanguageMatching.languages(acceptLanguage: request.acceptLanguage)
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch (request.isRead, parts.count) {
        case (true, 0):
            return .html(200, AppListPage(app: self, languages: languages).render())
        case (_, 2) where parts[0] == "apps", (_, 3) where parts[0] == "apps" && parts[2] == "image":
            let domain = FormData.decode(Substring(parts[1]))
            guard let path = bundlePath(for: domain) else {
                return notFound("No Settings bundle is installed for “\(domain)”.")
            }
            let bundle: SettingsBundle
            do { bundle = try SettingsBundle(path: path) } catch {
                return .html(500, MessagePage(title: "Unreadable bundle", message: error.description).render())
            }
            if parts.count == 3 { return image(bundle, name: query["name"] ?? "") }
            do { _ = try valuesDomain(of: bundle, domain: domain) } catch {
                return .html(422, MessagePage(title: "Unusable bundle",
                    message: "ApplicationGroupContainerIdentifier: \(error.reason). Nothing is read or written.").render())
            }
            let file = query["pane"] ?? bundle.rootFile
            guard let pane = bundle.panes[file] else { return notFound("“\(domain)” has no pane “\(file)”.") }
            return request.isRead
                ? showPane(bundle, pane, domain: domain, languages: languages, status: query["status"])
                : submit(form, bundle, pane, domain: domain, languages: languages)
        default:
            return notFound("There is no page at \(request.path).")
        }
    }

    /// The domain a bundle's values live in: its application group's, or the application's.
    func valuesDomain(of bundle: SettingsBundle, domain: String) throws(StorageError) -> String {
        let name = bundle.applicationGroupContainerIdentifier ?? domain
        try PreferencesLayout.validateDomainName(name)
        return name
    }

    /// The installed configuration profiles (none when the index cannot be read: keys then show as managed, unnamed).
    func installedProfiles() -> ProfileIndex {
        (try? ProfileStore(layout: store.layout).index()) ?? ProfileIndex()
    }

    func controller(for bundle: SettingsBundle, domain: String) -> DefaultsController {
        let valuesDomain = (try? valuesDomain(of: bundle, domain: domain)) ?? domain
        let defaults = defaults(for: valuesDomain)
        // Pick up what an administrator forced since the last request (other
        // processes' writes arrive by themselves; managed files are re-read here).
        _ = defaults.synchronize()
        let controller = DefaultsController(defaults: defaults, initialValues: bundle.defaultValues)
        controller.appliesImmediately = false
        return controller
    }

    func showPane(_ bundle: SettingsBundle, _ pane: Pane, domain: String, languages: [String], status: String?) -> ServerResponse {
        var page = PanePage(bundle: bundle, pane: pane, domain: domain, controller: controller(for: bundle, domain: domain), languages: languages, formToken: policy.formToken, profiles: installedProfiles(), profileUser: store.layout.userName)
        switch status {
        case "saved": page.banner = (false, "Your changes were applied.", [])
        case "unchanged": page.banner = (false, "Nothing to apply: no value changed.", [])
        case "reverted": page.banner = (false, "Unapplied changes were discarded.", [])
        case "reset": page.banner = (false, "This pane was reset to its default values.", [])
        default: break
        }
        return .html(200, page.render())
    }

    func submit(_ form: FormData, _ bundle: SettingsBundle, _ pane: Pane, domain: String, languages: [String]) -> ServerResponse {
        let controller = controller(for: bundle, domain: domain)
        let here = "/apps/" + domain.urlQueryEncoded + "?pane=" + pane.file.urlQueryEncoded
        switch form["action"] ?? "apply" {
        case "revert":
            return .seeOther(here + "&status=reverted")
        case "reset":
            let keys = pane.specifiers.compactMap(\.key).filter { !controller.defaults.objectIsForced(forKey: $0) }
            controller.revertToInitialValues(forKeys: keys)
            guard controller.save() else { return writeFailed(bundle, pane, domain: domain, languages: languages, controller) }
            return .seeOther(here + "&status=reset")
        case "apply":
            let submission = PaneSubmission(form: form, pane: pane, controller: controller) {
                bundle.localizedString($0, table: pane.stringsTable, languages: languages)
            }
            guard submission.refusals.isEmpty else {
                // Show the acceptable edits again, unsaved, so that only the refused field needs fixing.
                for edit in submission.edits { controller.values[edit.key] = edit.value }
                var page = PanePage(bundle: bundle, pane: pane, domain: domain, controller: controller, languages: languages, formToken: policy.formToken, profiles: installedProfiles(), profileUser: store.layout.userName)
                page.banner = (true, "Nothing was changed (your other edits are kept below, not applied):", submission.refusals)
                return .html(422, page.render())
            }
            if submission.edits.isEmpty { return .seeOther(here + "&status=unchanged") }
            for edit in submission.edits { controller.values[edit.key] = edit.value }
            guard controller.save() else { return writeFailed(bundle, pane, domain: domain, languages: languages, controller) }
            return .seeOther(here + "&status=saved")
        case let other:
            return .html(400, MessagePage(title: "Unknown action", message: "The form asked for “\(other)”; expected apply, revert or reset.").render())
        }
    }

    func writeFailed(_ bundle: SettingsBundle, _ pane: Pane, domain: String, languages: [String], _ controller: DefaultsController) -> ServerResponse {
        var page = PanePage(bundle: bundle, pane: pane, domain: domain, controller: controller, languages: languages, formToken: policy.formToken, profiles: installedProfiles(), profileUser: store.layout.userName)
        var reason = "the preferences file could not be written"
        do { try controller.defaults.synchronizeOrThrow() } catch { reason = error.description }
        page.banner = (true, "The changes could not be saved:", [reason])
        return .html(500, page.render())
    }

    /// An image file from the bundle: a plain name or sub-path inside it
    /// with an image extension, nothing else.
    func image(_ bundle: SettingsBundle, name: String) -> ServerResponse {
        let types = ["png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "svg": "image/svg+xml"]
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        // A regular file inside the bundle after every link is resolved; a
        // name with NUL or control characters is refused before any lookup.
        guard FileIO.isPlainRelativePath(name), let type = types[ext],
              let bytes = try? FileIO.readContainedFile(name, inside: bundle.path)
        else { return notFound("No image “\(name)” in the bundle.") }
        return ServerResponse(status: 200, contentType: type, body: bytes)
    }

    func notFound(_ message: String) -> ServerResponse {
        .html(404, MessagePage(title: "Not found", message: message).render())
    }
}
