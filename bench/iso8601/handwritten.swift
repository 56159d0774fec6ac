import Glibc

/// hookctl's hand-written ISO 8601 formatter and parser before the format style (commit f52b27b), the baseline.
enum HandWritten {
    public static func nowEpoch() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// `2026-11-29T13:02:29.123Z`
    public static func iso8601(_ epoch: Double) -> String {
        // Saturate: a damaged or absurd time prints as a far date, never traps.
        let clamped = epoch.isFinite ? min(max(epoch, 0), 253_402_300_799) : 0
        let totalMillis = Int64((clamped * 1000).rounded())
        var seconds = time_t(totalMillis / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let millis = Int(totalMillis % 1000)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }

    /// Parses the ISO 8601 UTC forms hookctl and the agents write; nil otherwise.
    public static func parseISO8601(_ text: String) -> Double? {
        let digits = Array(text.utf8)
        guard digits.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            var value: Int32 = 0
            for index in range {
                let byte = digits[index]
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int32(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        var fraction = 0.0
        var index = 19
        if index < digits.count, digits[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            while index < digits.count, digits[index] >= 48 && digits[index] <= 57 {
                fraction += Double(digits[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        return Double(timegm(&parts)) + fraction
    }
}

