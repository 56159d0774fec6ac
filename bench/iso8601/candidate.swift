import FoundationEssentials

/// The candidate replacement for WallClock.iso8601 (Sources/HookSupport/Support/Text.swift) with
/// Date.ISO8601FormatStyle: the same saturation and millisecond rounding, then the style (which
/// truncates to the millisecond, so half of one is added to land on the rounded one).
enum StyleCandidate {
    static let formatStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    static let parseStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    static let parseWhole = Date.ISO8601FormatStyle(timeZone: .gmt)

    static func iso8601(_ epoch: Double) -> String {
        let clamped = epoch.isFinite ? min(max(epoch, 0), 253_402_300_799) : 0
        let millis = (clamped * 1000).rounded()
        return formatStyle.format(Date(timeIntervalSince1970: (millis + 0.5) / 1000))
    }

    static func parseISO8601(_ text: String) -> Double? {
        ((try? parseStyle.parse(text)) ?? (try? parseWhole.parse(text)))?.timeIntervalSince1970
    }
}
