#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Proleptic Gregorian calendar arithmetic in UTC, for the date forms of the
/// text formats. Property-list dates count seconds from 2001-01-01 00:00:00 UTC.
struct CalendarDate: Equatable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int

    /// Days from 1970-01-01 to the given civil date; months and days out of
    /// range carry over (day 32 of January is February 1st).
    static func days(year: Int, month: Int, day: Int) -> Int {
        var y = year + (month - 1).floorDiv(12)
        let m = (month - 1).floorMod(12) + 1
        y -= m <= 2 ? 1 : 0
        let era = y.floorDiv(400)
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468 + (day - 1)
    }

    static let referenceOffset: Double = 978_307_200  // 1970 → 2001

    /// The instant this civil time names, in seconds since 2001-01-01.
    var timeIntervalSinceReferenceDate: Double {
        let d = CalendarDate.days(year: year, month: month, day: day)
        let s = Double(d) * 86400 + Double(hour * 3600 + minute * 60 + second)
        return s - CalendarDate.referenceOffset
    }

    /// The civil time of an instant, seconds rounded down.
    init(_ date: Date) {
        let t = (date.timeIntervalSinceReferenceDate + CalendarDate.referenceOffset).rounded(.down)
        let clamped = Swift.min(Swift.max(t, -1e15), 1e15)
        let total = Int(clamped)
        let z0 = total.floorDiv(86400)
        let secs = total - z0 * 86400
        let z = z0 + 719468
        let era = z.floorDiv(146097)
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(
            year: yoe + era * 400 + (m <= 2 ? 1 : 0), month: m, day: d,
            hour: secs / 3600, minute: secs % 3600 / 60, second: secs % 60)
    }

    init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        self.year = year; self.month = month; self.day = day
        self.hour = hour; self.minute = minute; self.second = second
    }

    /// `2024-01-02T03:04:05Z`, as the XML format writes dates.
    func appendISO8601<O: ByteAppending & ~Copyable>(to out: inout O) {
        appendDate(to: &out)
        out.append(UInt8(ascii: "T"))
        appendTime(to: &out)
        out.append(UInt8(ascii: "Z"))
    }

    /// `2024-01-02 03:04:05 +0000`, as `description` and `defaults read` print dates.
    func appendDescription<O: ByteAppending & ~Copyable>(to out: inout O) {
        appendDate(to: &out)
        out.append(0x20)
        appendTime(to: &out)
        out.append(ascii: " +0000")
    }

    private func appendDate<O: ByteAppending & ~Copyable>(to out: inout O) {
        if year < 0 { out.append(UInt8(ascii: "-")) }
        out.append(padded: abs(year), width: 4)
        out.append(UInt8(ascii: "-"))
        out.append(padded: month, width: 2)
        out.append(UInt8(ascii: "-"))
        out.append(padded: day, width: 2)
    }

    private func appendTime<O: ByteAppending & ~Copyable>(to out: inout O) {
        out.append(padded: hour, width: 2)
        out.append(UInt8(ascii: ":"))
        out.append(padded: minute, width: 2)
        out.append(UInt8(ascii: ":"))
        out.append(padded: second, width: 2)
    }

    /// Parses `[-]YYYY-MM-DDTHH:MM:SSZ` (the XML form) exactly.
    static func parseISO8601(_ b: UnsafeRawBufferPointer) -> CalendarDate? {
        var p = Scanner(b)
        let negative = p.take(UInt8(ascii: "-"))
        guard let y = p.number(minDigits: 1, maxDigits: 9), p.take(UInt8(ascii: "-")),
            let mo = p.number(minDigits: 2, maxDigits: 2), p.take(UInt8(ascii: "-")),
            let d = p.number(minDigits: 2, maxDigits: 2), p.take(UInt8(ascii: "T")),
            let h = p.number(minDigits: 2, maxDigits: 2), p.take(UInt8(ascii: ":")),
            let mi = p.number(minDigits: 2, maxDigits: 2), p.take(UInt8(ascii: ":")),
            let s = p.number(minDigits: 2, maxDigits: 2), p.take(UInt8(ascii: "Z")), p.atEnd
        else { return nil }
        return CalendarDate(year: negative ? -y : y, month: mo, day: d, hour: h, minute: mi, second: s)
    }

    /// Parses `YYYY-MM-DD HH:MM:SS ±HHMM` (the description form), returning
    /// seconds since 2001-01-01.
    static func parseDescription(_ b: UnsafeRawBufferPointer) -> Double? {
        var p = Scanner(b)
        let negative = p.take(UInt8(ascii: "-"))
        guard let year = p.number(minDigits: 1, maxDigits: 9), p.take(UInt8(ascii: "-")),
            let mo = p.number(minDigits: 1, maxDigits: 2), p.take(UInt8(ascii: "-")),
            let d = p.number(minDigits: 1, maxDigits: 2)
        else { return nil }
        let y = negative ? -year : year
        var h = 0, mi = 0, s = 0, offset = 0
        if p.take(0x20) || p.take(UInt8(ascii: "T")) {
            guard let hh = p.number(minDigits: 1, maxDigits: 2), p.take(UInt8(ascii: ":")),
                let mm = p.number(minDigits: 1, maxDigits: 2)
            else { return nil }
            h = hh; mi = mm
            if p.take(UInt8(ascii: ":")) {
                guard let ss = p.number(minDigits: 1, maxDigits: 2) else { return nil }
                s = ss
            }
            _ = p.take(0x20)
            if p.take(UInt8(ascii: "Z")) {
            } else if !p.atEnd {
                let sign = p.take(UInt8(ascii: "-")) ? -1 : (p.take(UInt8(ascii: "+")) ? 1 : 0)
                guard sign != 0, let z = p.number(minDigits: 4, maxDigits: 4) else { return nil }
                offset = sign * ((z / 100) * 3600 + (z % 100) * 60)
            }
        }
        guard p.atEnd, (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        return CalendarDate(year: y, month: mo, day: d, hour: h, minute: mi, second: s)
            .timeIntervalSinceReferenceDate - Double(offset)
    }

    private struct Scanner {
        let b: UnsafeRawBufferPointer
        var i = 0
        init(_ b: UnsafeRawBufferPointer) { self.b = b }
        var atEnd: Bool { i == b.count }
        mutating func take(_ c: UInt8) -> Bool {
            if i < b.count, b[i] == c { i += 1; return true }
            return false
        }
        mutating func number(minDigits: Int, maxDigits: Int) -> Int? {
            var v = 0
            let start = i
            while i < b.count, i - start < maxDigits, ASCII.isDigit(b[i]) {
                v = v * 10 + Int(b[i] - 0x30)
                i += 1
            }
            return i - start >= minDigits ? v : nil
        }
    }
}

extension Int {
    @inline(__always) func floorDiv(_ d: Int) -> Int {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
    @inline(__always) func floorMod(_ d: Int) -> Int { self - floorDiv(d) * d }
}
