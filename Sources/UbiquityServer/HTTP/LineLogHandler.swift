package import Logging
import PlatformIO
import PropertyList

/// swift-log's lines as operators' tools read them: one line per event on
/// standard error (journald keeps it), in logfmt (`ts=… level=info
/// msg="…" key=value`) or JSON (`{"ts":…,"level":"info","msg":"…",…}`).
/// Values are quoted and escaped so that a line is always one line.
///
/// ```swift
/// LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: .logfmt, level: .info) }
/// ```
package struct LineLogHandler: LogHandler {
    package enum Format: String, Sendable, CaseIterable {
        case logfmt, json
    }

    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level
    let label: String
    let format: Format
    let write: @Sendable (String) -> Void

    package init(label: String, format: Format, level: Logger.Level,
                 write: @escaping @Sendable (String) -> Void = { StandardStream.error.write($0) }) {
        self.label = label
        self.format = format
        self.logLevel = level
        self.write = write
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var fields: [(String, String)] = [("ts", Environment.isoTimestamp()), ("level", event.level.rawValue), ("msg", event.message.description)]
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        for key in merged.keys.sorted() { fields.append((key, Self.flatten(merged[key]!))) }
        write(Self.line(fields, format: format))
    }

    /// The fields as one line, ending in a newline.
    static func line(_ fields: [(String, String)], format: Format) -> String {
        switch format {
        case .logfmt:
            return fields.map { "\($0.0)=\(logfmtValue($0.1))" }.joined(separator: " ") + "\n"
        case .json:
            return "{" + fields.map { "\(jsonString($0.0)):\(jsonString($0.1))" }.joined(separator: ",") + "}\n"
        }
    }

    static func flatten(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let s): s
        case .stringConvertible(let c): c.description
        case .array(let a): "[" + a.map(flatten).joined(separator: ",") + "]"
        case .dictionary(let d): "{" + d.keys.sorted().map { "\($0):\(flatten(d[$0]!))" }.joined(separator: ",") + "}"
        }
    }

    /// Bare when it is a plain word, else quoted with `"`, `\` and control characters escaped.
    static func logfmtValue(_ s: String) -> String {
        let plain = !s.isEmpty && s.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "=" && $0 != "\\" }
        return plain ? s : jsonString(s)
    }

    /// A JSON string literal (PropertyList's one JSON escaper).
    static func jsonString(_ s: String) -> String {
        var out: [UInt8] = []
        JSONEscape.appendQuoted(s, to: &out, escapingSlash: false)
        return String(decoding: out, as: UTF8.self)
    }
}
