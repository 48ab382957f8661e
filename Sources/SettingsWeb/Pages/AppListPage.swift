import SettingsBundle
import HTTPMessages

/// The first page: every application with a Settings bundle.
struct AppListPage {
    let app: SettingsApp
    let languages: [String]

    func render() -> String {
        var h = HTMLBuilder()
        h.raw("""
            <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
            <title>Settings</title><style>\(Stylesheet.css)</style></head><body><header class="nav"><h1>Settings</h1></header><main>
            """)
        let domains = app.domains
        if domains.isEmpty {
            h.raw("<section class=\"group\"><ul class=\"cells\"><li><span class=\"label\">No applications yet. Install a bundle with <code>settings install &lt;bundle&gt; --domain &lt;id&gt;</code>.</span></li></ul></section>")
        } else {
            h.raw("<section class=\"group\"><h2>Applications</h2><ul class=\"cells\" id=\"apps\">")
            for domain in domains {
                let bundle = app.bundlePath(for: domain).flatMap { try? SettingsBundle(path: $0) }
                let title = bundle.flatMap { b in b.root.title.map { b.localizedString($0, table: b.root.stringsTable, languages: languages) } } ?? domain
                h.raw("<li><a class=\"row\" href=\"/apps/")
                h.text(domain.urlQueryEncoded)
                h.raw("\"><span class=\"label\">")
                h.text(title)
                h.raw("<small class=\"domain\">")
                h.text(domain)
                h.raw(bundle == nil ? " — unreadable bundle" : "")
                h.raw("</small></span></a></li>")
            }
            h.raw("</ul></section>")
        }
        h.raw("</main></body></html>\n")
        return h.html
    }
}
