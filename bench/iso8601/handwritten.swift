import Glibc

/// hookctl's hand-written ISO 8601 formatter before the format style (commit f52b27b), the baseline.
/// (The hand-written parser is still the library's: run.sh copies it with WallClock.)
enum HandWritten {
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
}
