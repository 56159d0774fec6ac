/// The right to read or type into one board agent's pane, checked just before acting: the pane is
/// the one the board recorded, on the tmux server recorded with it, and it still runs the processes
/// recorded there (pid and start time from /proc, so a reused pid or a respawned pane does not pass).
/// Nothing else hookctl knows of may be typed into.
package struct PaneAccess: Sendable {
    package var entry: BoardEntry
    package var client: TmuxClient
    package var pane: String
    /// Set when only the pane's process is known from an earlier `status` (not from the agent's own
    /// hook): tmux must confirm the pane still runs it, in the same call as the action when possible.
    package var confirmPanePID: Int32?
    /// Set when no process was recorded at all: the one tmux reports now is recorded for next time.
    package var learnPane = false

    /// Checks the entry's pane; throws `AnswerError.refused` (exit 69) saying why it may not be touched.
    package static func open(_ entry: BoardEntry, environment: [String: String]) throws -> PaneAccess {
        func refuse(_ reason: String) -> AnswerError { .refused(key: entry.key, reason: reason) }
        if entry.state == .ended {
            switch entry.endReason {
            case .paneGone: throw refuse("its tmux pane is gone (the session ended)")
            case .replaced: throw refuse("another agent session started in its pane since")
            default: throw refuse("the agent reported the end of its session")
            }
        }
        guard let tmux = entry.tmux else { throw refuse("it was not recorded in a tmux pane") }
        guard let socket = tmux.socket, !socket.isEmpty else { throw refuse("its tmux server (socket) was not recorded") }
        guard tmux.pane.hasPrefix("%"), tmux.pane.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }), tmux.pane.count > 1 else {
            throw refuse("its recorded pane '\(AnswerText.forTerminal(tmux.pane))' is not a tmux pane id")
        }
        let executable = try TmuxClient.locate(environment: environment)
        let client = TmuxClient(executable: executable,
                                socket: TmuxSocket(socketPath: socket, socketName: nil, environment: environment),
                                environment: environment, timeout: 5)
        var access = PaneAccess(entry: entry, client: client, pane: tmux.pane)
        // Only when the recorded process is gone: does the pane still exist, running something else?
        let paneNow = { () -> String in
            guard let result = try? access.driver.run(["display-message", "-p", "-t", tmux.pane, "#{pane_pid} #{pane_current_command}"]),
                  !Text.trimmed(result.outputText).isEmpty else { return "its tmux pane is gone" }
            return "another program now runs in its pane ('\(AnswerText.forTerminal(Text.trimmed(result.outputText)))')"
        }
        if let processes = entry.processes {
            try check(processes, refuse: refuse, paneNow: paneNow)
        } else if let pid = entry.panePID, let start = entry.panePIDStart {
            guard PaneCheck.processStart(pid) == start else {
                throw refuse(paneNow() + " (pid \(pid), the process tmux started there, has exited)")
            }
            access.confirmPanePID = pid
        } else {
            access.learnPane = true
        }
        return access
    }

    /// The recorded processes against /proc: the pane's process alive, the same one, still a child of
    /// the recorded tmux server; the agent alive, the same one, and in the pane's foreground.
    package static func check(_ processes: PaneProcesses, refuse: (String) -> AnswerError, paneNow: () -> String) throws {
        guard let pane = ProcessStat.read(processes.pane), pane.isAlive, pane.start == processes.paneStart else {
            throw refuse(paneNow() + " (pid \(processes.pane), the process tmux started there, has exited)")
        }
        guard pane.parent == processes.server else {
            throw refuse("its tmux pane is gone (pid \(processes.pane) no longer belongs to the tmux server)")
        }
        // What runs in the pane's foreground now, named only when refusing: the usual call reads no more of /proc.
        let now = { () -> String in
            let foreground = pane.foregroundGroup > 0 ? ProcessStat.read(pane.foregroundGroup)?.command : nil
            return foreground.map { "; now '\(AnswerText.forTerminal($0))' runs there" } ?? ""
        }
        var agent = pane
        if processes.agent != processes.pane {
            guard let stat = ProcessStat.read(processes.agent), stat.isAlive, stat.start == processes.agentStart else {
                throw refuse("another program runs in the pane: the agent (pid \(processes.agent)) has exited\(now())")
            }
            agent = stat
        }
        if pane.foregroundGroup > 0, pane.foregroundGroup != agent.group {
            throw refuse("another program runs in the pane's foreground, not the agent (pid \(processes.agent))\(now())")
        }
    }

    package var driver: PaneDriver { PaneDriver(client: client, pane: pane) }

    /// Asks tmux which process runs in the pane; refuses when it is not the recorded one. Returns it.
    @discardableResult
    package func confirmWithTmux() throws -> Int32? {
        guard confirmPanePID != nil || learnPane else { return nil }
        let pid = try driver.panePID()
        if let expected = confirmPanePID, pid != expected {
            throw AnswerError.refused(key: entry.key, reason: "another program now runs in its pane (pid \(pid), recorded \(expected))")
        }
        return pid
    }
}

/// The tmux calls `peek` and `reply` make on one pane (exact `%id` target, the recorded socket).
/// Text reaches tmux only through `load-buffer -` on standard input, never on a command line.
package struct PaneDriver {
    package var client: TmuxClient
    package var pane: String

    package static let captureLimit = 8 << 20

    package func run(_ arguments: [String], input: [UInt8]? = nil) throws -> Subprocess.Result {
        try start(arguments, input: input).finish()
    }

    /// A tmux call started and not yet waited for: the caller works meanwhile, then `finish`es it.
    package struct Running {
        package var client: TmuxClient
        package var process: Subprocess
        package var child: Subprocess.Child
        package var command: String

        /// Waits for tmux; its output, or the error it reported.
        package func finish() throws -> Subprocess.Result {
            let result: Subprocess.Result
            do { result = try process.reap(child, process.pump(child)) } catch SystemError.timedOut {
                throw TmuxError.timedOut(command: command, seconds: client.timeout, socket: client.socket.path)
            }
            if result.status != 0 {
                if client.isNoServer(result) { throw TmuxError.noServer(socket: client.socket.path) }
                throw client.failure(command, result)
            }
            return result
        }
    }

    package func start(_ arguments: [String], input: [UInt8]? = nil) throws -> Running {
        var process = Subprocess(executable: client.executable, arguments: client.socket.arguments + arguments,
                                 environment: client.environment, input: input, timeout: client.timeout)
        process.outputLimit = PaneDriver.captureLimit
        return Running(client: client, process: process, child: try process.spawn(), command: arguments.first ?? "tmux")
    }

    package static let panePIDFormat = "#{pane_pid}"

    package func panePID() throws -> Int32 {
        let text = Text.trimmed(try run(["display-message", "-p", "-t", pane, PaneDriver.panePIDFormat]).outputText)
        guard let pid = Int32(text) else { throw TmuxError.unreadableOutput(command: "display-message", output: text) }
        return pid
    }

    /// The visible screen plus `history` lines above it, wrapped lines joined (`capture-pane -p -J`).
    /// With `confirm`, tmux reports the pane's process in the same call and it must be that one.
    package func capture(history: Int, confirm: Int32? = nil) throws -> (text: String, panePID: Int32?) {
        var arguments: [String] = []
        if confirm != nil { arguments += ["display-message", "-p", "-t", pane, PaneDriver.panePIDFormat, ";"] }
        arguments += ["capture-pane", "-p", "-J", "-t", pane]
        if history > 0 { arguments += ["-S", "-\(history)"] }
        let output = try run(arguments).outputText
        guard confirm != nil else { return (output, nil) }
        let newline = output.firstIndex(of: "\n") ?? output.endIndex
        let pid = Int32(Text.trimmed(String(output[..<newline])))
        let rest = newline < output.endIndex ? String(output[output.index(after: newline)...]) : ""
        return (rest, pid)
    }

    /// Pastes `text` as one paste: a private buffer loaded from stdin, pasted bracketed (`-p`, when the
    /// program asked for bracketed paste) with line feeds kept (`-r`), and deleted (`-d`).
    package func paste(_ text: String) throws {
        let buffer = "hookctl-reply-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            _ = try run(["load-buffer", "-b", buffer, "-", ";", "paste-buffer", "-p", "-r", "-d", "-b", buffer, "-t", pane],
                        input: Array(text.utf8))
        } catch {
            _ = try? run(["delete-buffer", "-b", buffer])
            throw error
        }
    }

    /// One allowlisted key (see `ReplyKeys`).
    package func press(_ key: String) throws {
        _ = try startPress(key).finish()
    }

    /// `press`, started: tmux sends the key while the caller works; `finish` waits for it.
    package func startPress(_ key: String) throws -> Running {
        precondition(ReplyKeys.allowed.contains(key))
        return try start(["send-keys", "-t", pane, key])
    }

    /// Digits typed as characters (`-l`): the number of a menu row.
    package func type(digits: String) throws {
        precondition(!digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber })
        _ = try run(["send-keys", "-t", pane, "-l", digits])
    }

    /// Waits for the agent's redraw: every 30 ms, for at most `seconds`, asks `probe` (which reads the
    /// pane) and returns its first answer; nil when none came in time.
    package func poll<T>(within seconds: Double, _ probe: () throws -> T?) rethrows -> T? {
        let deadline = ContinuousClock.Instant.after(seconds: seconds)
        repeat {
            sleepSeconds(0.03)
            if let found = try probe() { return found }
        } while !deadline.hasPassed
        return nil
    }

    /// The visible screen as captured (raw), then Enter, in one tmux call: the "before" for the check.
    package func captureThenEnter() throws -> String {
        try run(["capture-pane", "-p", "-J", "-t", pane, ";", "send-keys", "-t", pane, "Enter"]).outputText
    }
}
