#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension PropertyList {
    /// The XML format's text for a date, in UTC, whole seconds (rounded down).
    ///
    /// ```swift
    /// PropertyList.iso8601String(for: Date(timeIntervalSinceReferenceDate: 0))  // "2001-01-01T00:00:00Z"
    /// ```
    public static func iso8601String(for date: Date) -> String {
        var out: [UInt8] = []
        CalendarDate(date).appendISO8601(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The description text for a date, as `defaults read` prints it.
    ///
    /// ```swift
    /// PropertyList.descriptionString(for: Date(timeIntervalSinceReferenceDate: 0))  // "2001-01-01 00:00:00 +0000"
    /// ```
    public static func descriptionString(for date: Date) -> String {
        var out: [UInt8] = []
        CalendarDate(date).appendDescription(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ` (the XML form) or
    /// `YYYY-MM-DD HH:MM:SS ±HHMM` (the description form, time optional).
    ///
    /// ```swift
    /// PropertyList.date(from: "2024-01-02 03:04:05 +0000")
    /// ```
    public static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { b in
            let raw = UnsafeRawBufferPointer(b)
            if let d = CalendarDate.parseISO8601(raw) {
                return Date(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate)
            }
            return CalendarDate.parseDescription(raw).map { Date(timeIntervalSinceReferenceDate: $0) }
        }
    }
}
