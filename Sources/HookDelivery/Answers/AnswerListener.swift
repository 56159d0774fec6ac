/// The answer listener: the sender's sibling (`hookctl outbox listen`, one per user, a `Daemon`), started when a push carries answer buttons (`AnswerSigner`) and running while any
/// of them may still be used (`answer-open`). It only connects outward: an ntfy sink's reply topic is
/// followed as ntfy's JSON stream (`GET <server>/<topic>/json?since=<id>`, through libcurl),
/// a Telegram bot is long-polled
/// (`getUpdates` with `offset`). Each answer is checked (`PushAnswer`) and pressed as
/// `reply --choice` presses it. Where it has read to is written down (`answer-listener.json`, flushed)
/// before it acts on an answer, so none is acted on twice across restarts and kill -9. It holds no lock
/// a hook takes; its start and its end are lines of `listener.log`.
package enum AnswerListener {
    package static func openFile(_ paths: Paths) -> String { paths.stateDirectory + "/answer-open" }
    package static func positionFile(_ paths: Paths) -> String { paths.stateDirectory + "/answer-listener.json" }
    package static func logFile(_ paths: Paths) -> String { paths.stateDirectory + "/listener.log" }
    /// How long the listener stays after the last answer it was told of expired.
    package static let grace: Double = 30

    /// Answers may come until `expiry` (epoch seconds): kept when later than what the file says.
    package static func open(until expiry: Int, paths: Paths) {
        if let known = openUntil(paths), known >= Double(expiry) { return }
        try? FileSystem.writeAtomically(openFile(paths), text: "\(expiry)\n", mode: 0o600, sync: false, followSymlinks: false)
    }

    package static func openUntil(_ paths: Paths) -> Double? {
        ((try? FileSystem.read(openFile(paths), limit: 64, followSymlinks: false)) ?? nil)
            .flatMap { Double(Text.trimmed(String(decoding: $0, as: UTF8.self))) }
    }

    package static func daemon(_ paths: Paths) -> Daemon { Daemon("listener", paths: paths, logFile: logFile(paths), olderLock: "listener.lock") }

    /// Starts the listener unless one runs; true when it started one.
    @discardableResult
    package static func start(paths: Paths, configFile: String, environment: [String: String]) -> Bool {
        daemon(paths).start(arguments: ["outbox", "listen", "--config", configFile], environment: environment)
    }

    /// One line of `listener.log`.
    package static func log(_ paths: Paths, _ line: String) { daemon(paths).log(line) }
}
