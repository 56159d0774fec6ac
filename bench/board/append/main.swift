// Times EventLog.append in an optimized build: N appends spread over S agent sessions (each in its
// own tmux pane) into a fresh state directory. Compiled by run.sh together with the library sources.
// Usage: append-bench COUNT SESSIONS HOME
let arguments = CommandLine.arguments
let count = Int(arguments[1]) ?? 2000
let sessions = Int(arguments[2]) ?? 40
let directory = arguments[3]
let log = EventLog(paths: Paths(environment: ["HOME": directory]))
let kinds: [EventKind] = [.working, .needsInput, .done]
var samples: [Double] = []
for index in 0..<count {
    var event = Event(agent: ["claude", "codex", "gemini"][index % 3], kind: kinds[index % 3], agentEvent: "Stop",
                      title: "t", message: String(repeating: "word ", count: 30), host: "h",
                      tmux: TmuxLocation(session: "sshido-1", pane: "%\(index % sessions)", socket: "/tmp/none"),
                      cwd: "/home/me/p\(index % sessions)", sessionID: "s\(index % sessions)")
    let start = monotonicSeconds()
    try! log.append(&event)
    samples.append(monotonicSeconds() - start)
}
samples.sort()
print("appends: \(count), sessions: \(sessions), median \(Int(samples[count / 2] * 1_000_000)) µs, p90 \(Int(samples[count * 9 / 10] * 1_000_000)) µs")
