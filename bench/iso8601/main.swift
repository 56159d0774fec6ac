// ISO 8601 side by side, in one optimized binary, on the same 10,000 event times: the library's
// hand-written WallClock (copied from Sources/HookSupport/Support/Text.swift by run.sh) against the
// Date.ISO8601FormatStyle candidate (candidate.swift). Prints the first call's cost, ns per call, the ratio.
import FoundationEssentials
import Glibc

func nanoseconds(_ body: () -> Void) -> Double {
    var start = timespec(), end = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    body()
    clock_gettime(CLOCK_MONOTONIC, &end)
    return Double(end.tv_sec - start.tv_sec) * 1e9 + Double(end.tv_nsec - start.tv_nsec)
}

// A hook formats one or two times per process: the first call, with whatever it sets up, is what it pays.
let firstHand = nanoseconds { _ = WallClock.iso8601(1_764_000_000.123) }
let firstStyle = nanoseconds { _ = StyleCandidate.iso8601(1_764_000_000.123) }
let firstHandParse = nanoseconds { _ = WallClock.parseISO8601("2025-11-24T16:00:00.123Z") }
let firstStyleParse = nanoseconds { _ = StyleCandidate.parseISO8601("2025-11-24T16:00:00.123Z") }
print("first call in a fresh process: format hand-written \(Int(firstHand / 1000)) µs, style \(Int(firstStyle / 1000)) µs;"
      + " parse hand-written \(Int(firstHandParse / 1000)) µs, style \(Int(firstStyleParse / 1000)) µs")

let count = 10_000
let rounds = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 7
var generator = SystemRandomNumberGenerator()
let base = 1_764_000_000.0
let epochs = (0..<count).map { _ in base + Double.random(in: 0..<(2 * 86_400), using: &generator) }
let edges: [Double] = [0, 0.0004, 0.0005, 0.9995, 0.9996, 1_764_000_000.0009, 1_764_000_000.1235, 1_764_000_059.9996,
                       253_402_300_799, 253_402_300_799.9, 1e20, -5, .infinity, .nan]
let texts = epochs.map(WallClock.iso8601)

// Same output first: the tests pin the format.
var mismatches = 0
for epoch in epochs + edges where StyleCandidate.iso8601(epoch) != WallClock.iso8601(epoch) {
    mismatches += 1
    if mismatches < 5 { print("differs at \(epoch): \(StyleCandidate.iso8601(epoch)) != \(WallClock.iso8601(epoch))") }
}
var parseMismatches = 0
for text in texts where abs((StyleCandidate.parseISO8601(text) ?? -1) - (WallClock.parseISO8601(text) ?? -2)) > 0.0005 { parseMismatches += 1 }
print("format differs on \(mismatches) of \(count + edges.count) times; the style's parse differs on \(parseMismatches)")

var sink = 0
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
var results: [String: [Double]] = [:]
for _ in 0..<rounds {
    // Both sides within each round, so load from other work on the machine hits both alike.
    results["format hand", default: []].append(nanoseconds { for e in epochs { sink &+= WallClock.iso8601(e).utf8.count } } / Double(count))
    results["format style", default: []].append(nanoseconds { for e in epochs { sink &+= StyleCandidate.iso8601(e).utf8.count } } / Double(count))
    results["parse hand", default: []].append(nanoseconds { for t in texts { sink &+= Int(WallClock.parseISO8601(t) ?? 0) & 1 } } / Double(count))
    results["parse style", default: []].append(nanoseconds { for t in texts { sink &+= Int(StyleCandidate.parseISO8601(t) ?? 0) & 1 } } / Double(count))
}
for operation in ["format", "parse"] {
    let hand = median(results["\(operation) hand"]!), style = median(results["\(operation) style"]!)
    print("\(operation): hand-written \(Int(hand.rounded())) ns/call, ISO8601FormatStyle \(Int(style.rounded())) ns/call,"
          + " ratio \((style / hand * 100).rounded() / 100)x")
}
if sink == 42 { print("") }
