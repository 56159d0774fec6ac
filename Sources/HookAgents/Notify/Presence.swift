/// Whether the user sits at the agent's tmux session now: a client is attached to it and a key was
/// typed into it within the quiet window. Read in the one `display-message` call notify already makes
/// for the pane's session and window (`TmuxContext`), so it costs no extra process.
///
/// `#{session_activity}` is the session's last input (tmux updates it on a key from an attached client,
/// and on attach or switch; pane output does not touch it), `#{session_attached}` the clients attached to
/// it. `#{client_activity}` is not used: without `-c`, `display-message` reports the server's most recently
/// active client, which may be attached to another session (seen on tmux 3.3a).
package struct TmuxPresence: Sendable, Equatable {
    /// Clients attached to the agent's session.
    package var attachedClients: Int
    /// The session's last input, epoch seconds (whole seconds, as tmux keeps it).
    package var lastInput: Double?

    /// `present`: attached, and typed into within `window` seconds of `now` (nil window: the rule is off).
    /// A last input in the future (the clock went back) counts as now.
    package static func isPresent(_ presence: TmuxPresence?, now: Double, window: Double?) -> Bool {
        guard let window, window > 0, let presence, presence.attachedClients > 0, let lastInput = presence.lastInput else { return false }
        return now - lastInput < window
    }

    /// Parses `#{session_attached}` and `#{session_activity}` as tmux prints them; nil when either is unreadable.
    package init?(attached: String, activity: String) {
        guard let count = Int(attached), count >= 0 else { return nil }
        attachedClients = count
        lastInput = Double(activity)
    }

    package init(attachedClients: Int, lastInput: Double?) {
        self.attachedClients = attachedClients
        self.lastInput = lastInput
    }
}

/// A question asked while the user sat at the agent's session is not pushed, but it must not be lost
/// if they walk away before answering. Such a `needs_input` event (logged with `"quiet": "present"`) is
/// held as one file under `held/` in the state directory, and a detached watcher
/// (`hookctl present-watch`, one per user, an flock) looks at each held question every few seconds:
///
/// - the session left `needs_input`, or waits on a newer question, or its pane is gone: the user
///   answered (or it ended): the hold is dropped, nothing is pushed;
/// - nobody is attached to the session any more, or no key was typed into it for the quiet window:
///   the event is pushed then (committed to the outbox and delivered as a hook would; its id is the
///   idempotency key), and the hold is dropped;
/// - otherwise it waits. A hold older than the outbox's expiry is dropped.
///
/// The watcher asks tmux one `display-message` per held question and pass; it exits when nothing is held.
package enum PresenceHold {
    package static func directory(_ paths: Paths) -> String { paths.stateDirectory + "/held" }
    package static func daemon(_ paths: Paths) -> Daemon { Daemon("present-watch", paths: paths, olderLock: "present-watch.lock") }

    /// Holds a logged `needs_input` event and starts the watcher unless one runs.
    package static func hold(_ event: Event, paths: Paths, configOverride: String?, environment: [String: String]) throws {
        try FileSystem.makeDirectories(directory(paths))
        try FileSystem.writeAtomically(directory(paths) + "/" + fileName(event.id), text: JSON.serialize(event.json), sync: false)
        startWatcher(paths: paths, configOverride: configOverride, environment: environment)
    }

    /// A file name for an event id: its letters, digits and dashes only (ids are UUIDs).
    package static func fileName(_ id: String) -> String {
        String(id.unicodeScalars.filter { $0.isASCIILetterOrDigit || $0 == "-" }
            .map(Character.init).prefix(64)) + ".json"
    }

    package static func startWatcher(paths: Paths, configOverride: String?, environment: [String: String]) {
        var arguments = ["present-watch"]
        if let configOverride { arguments += ["--config", configOverride] }
        daemon(paths).start(arguments: arguments, environment: environment)
    }

    /// What to do with one held question now.
    package enum Verdict: Equatable { case wait, push, drop }

    /// Pure: from the board entry of its session now, and the session's presence now (nil: the pane or
    /// session is gone).
    package static func verdict(held: Event, entry: BoardEntry?, presence: TmuxPresence?, paneExists: Bool, now: Double,
                        window: Double?, expire: Double) -> Verdict {
        if now - held.time > expire { return .drop }
        guard let entry, entry.state == .needsInput, entry.since <= held.time + 0.001 else { return .drop }
        guard paneExists else { return .drop }
        return TmuxPresence.isPresent(presence, now: now, window: window) ? .wait : .push
    }

    /// The watcher: passes every `interval` seconds while anything is held. Returns when nothing is, or
    /// another watcher holds the lock.
    package static func watch(paths: Paths, environment: [String: String], interval: Double = 3) {
        let daemon = daemon(paths)
        guard let lock = daemon.lock() else {
            daemon.log("not started: another watcher holds \(daemon.lockFile)")
            return
        }
        defer {
            lock.unlock()
            daemon.log("stopped: nothing is held")
        }
        daemon.log("started: a question is held while its session is in use")
        while true {
            let config = ((try? Config.load(path: paths.configFile, environment: environment)) ?? nil) ?? Config()
            let names = ((try? FileSystem.list(directory(paths))) ?? []).filter { $0.hasSuffix(".json") }
            if names.isEmpty { return }
            let log = EventLog(paths: paths, maxLogSize: config.defaults.logMaxSize, keptGenerations: config.defaults.logKeep)
            for name in names {
                let path = directory(paths) + "/" + name
                guard let text = try? FileSystem.readString(path), let json = try? JSON.parse(Array(text.utf8)),
                      let event = try? Event(json: json) else {
                    FileSystem.remove(path)
                    continue
                }
                let (exists, presence) = presenceNow(event.tmux, environment: environment)
                let verdict = verdict(held: event, entry: log.storedEntry(for: event), presence: presence, paneExists: exists,
                                      now: WallClock.nowEpoch(), window: config.defaults.presentWindow,
                                      expire: config.defaults.retry.expire)
                switch verdict {
                case .wait: continue
                case .drop: FileSystem.remove(path)
                case .push:
                    let engine = DeliveryEngine(usable: SinkRegistry.makeUsableSinks(config: config), outbox: Outbox(paths: paths),
                                                defaults: config.defaults, answers: AnswerSigner(paths: paths, environment: environment))
                    var problems: [String] = []
                    var pushed = event
                    pushed.quietReason = nil
                    let reports = engine.deliver(pushed, deadline: .after(seconds: config.defaults.budget), problems: &problems)
                    FileSystem.remove(path)
                    if reports.contains(where: \.pending) || engine.outbox.hasPending() {
                        BackgroundFlusher.start(paths: paths, configOverride: nil, environment: environment)
                    }
                }
            }
            sleepSeconds(interval)
        }
    }

    /// Whether the recorded pane still exists, and its session's presence, in one tmux call.
    package static func presenceNow(_ tmux: TmuxLocation?, environment: [String: String]) -> (exists: Bool, presence: TmuxPresence?) {
        guard let tmux, let socket = tmux.socket, let executable = try? TmuxClient.locate(environment: environment) else { return (false, nil) }
        let client = TmuxClient(executable: executable, socket: TmuxSocket(socketPath: socket, socketName: nil, environment: environment),
                                environment: environment, timeout: 2)
        guard let result = try? client.run(["display-message", "-p", "-t", tmux.pane, "#{pane_id}\t#{session_attached}\t#{session_activity}"]),
              result.status == 0 else { return (false, nil) }
        let fields = Text.trimmed(result.outputText).split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        // `display-message` on a missing pane prints empty fields and exits 0.
        guard fields.count == 3, fields[0] == tmux.pane else { return (false, nil) }
        return (true, TmuxPresence(attached: fields[1], activity: fields[2]))
    }
}
