/// Options given before the verb.
struct Options {
    enum Host {
        case any
        case current
        case named(String)
    }

    enum Format: String {
        /// macOS's description form.
        case plain
        /// An XML property list (lossless).
        case xml
        /// JSON (where the value allows).
        case json
    }

    var host: Host = .any
    var format: Format = .plain
    var fullData = false
    var utf8 = false
    var keyPaths = false
}
