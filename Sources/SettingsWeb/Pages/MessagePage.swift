
/// A page with one message (errors, not found).
struct MessagePage {
    let title: String
    let message: String

    func render() -> String {
        var h = HTMLBuilder()
        h.raw("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
        h.text(title)
        h.raw("</title><style>\(Stylesheet.css)</style></head><body><header class=\"nav\"><a class=\"back\" href=\"/\">‹ Settings</a><h1>")
        h.text(title)
        h.raw("</h1></header><main><div class=\"banner error\" role=\"alert\">")
        h.text(message)
        h.raw("</div></main></body></html>\n")
        return h.html
    }
}
