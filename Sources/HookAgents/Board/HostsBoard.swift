/// One host's board as `status --hosts` shows it: its agents, or why there are none to show (a host
/// that did not answer is a row of its own, never silently missing, never replaced by local data).
package struct HostBoard: Sendable {
    package enum State: String, Sendable {
        case ok, unreachable
        case noHookctl = "no_hookctl"
        case tooOld = "too_old"
        case badAnswer = "bad_answer"
        case failed
    }

    package var name: String
    package var state: State
    /// Seconds from asking to the whole answer (nil for the local board).
    package var latency: Double?
    package var entries: [BoardEntry] = []
    package var lastSeq = 0
    package var reason: String?
    package var fix: String?

    package init(name: String, state: State, latency: Double? = nil, entries: [BoardEntry] = [], lastSeq: Int = 0,
         reason: String? = nil, fix: String? = nil) {
        self.name = name
        self.state = state
        self.latency = latency
        self.entries = entries
        self.lastSeq = lastSeq
        self.reason = reason
        self.fix = fix
    }

    /// `unreachable: box2 (why)`, the line a host without a board gets.
    package var problemLine: String? {
        guard state != .ok else { return nil }
        let label = state == .unreachable ? "unreachable" : state.rawValue.replacing("_", with: " ")
        return "\(label): \(name) (\(reason ?? "no answer"))"
    }

    package var json: JSONValue {
        var object = JSONObject()
        object["name"] = .string(name)
        object["state"] = .string(state.rawValue)
        object["latency_ms"] = latency.map { .int(Int(($0 * 1000).rounded())) } ?? .null
        object["agents"] = .int(entries.count)
        object["last_seq"] = .int(lastSeq)
        object["error"] = reason.map(JSONValue.string) ?? .null
        object["fix"] = fix.map(JSONValue.string) ?? .null
        return .object(object)
    }
}

/// The board across hosts: every configured host asked at once over the shared ssh runner (its
/// control master kept warm), each answer read as untrusted input.
package enum HostsBoard {
    /// Asks each host for `hookctl status --json`, all at once, all within `timeout` seconds: through
    /// the link when its owner runs (`HostLink`: no ssh, shell or hookctl start per host), else, and for
    /// each host the link has not answered, by running it over ssh. The owner gets at most
    /// `HostLink.askTimeout(timeout)` (2 s of 10): a stuck one costs no more, the rest of the deadline goes
    /// to ssh, and `warn` and link.log say so. A run that had to use ssh for a host that answered starts
    /// the owner in the background, for the next ask.
    package static func ask(_ hosts: [SSHRunner.Host], runner: SSHRunner, timeout: Double,
                    warn: (String) -> Void = { _ in }) -> [HostBoard] {
        let deadline = ContinuousClock.now + .seconds(clampingSeconds: timeout)
        var boards: [HostBoard?] = Array(repeating: nil, count: hosts.count)
        var linked = false
        if let directory = runner.linkDirectory, !hosts.isEmpty,
           let answers = HostLink.ask(hosts, directory: directory, timeout: HostLink.askTimeout(timeout), limit: runner.answerLimit,
                                      stuck: { line in
                                          HostLink.log(Paths(environment: runner.environment), "asker: " + line)
                                          warn(line)
                                      }) {
            linked = !answers.contains(.stuck)
            for (index, answer) in answers.enumerated() {
                let host = hosts[index]
                switch answer {
                case .ok(let bytes, let latency): boards[index] = board(host.name, .ok(bytes), latency: latency)
                case .tooLarge: boards[index] = board(host.name, .badAnswer("its answer is larger than \(runner.answerLimit >> 20) MB"), latency: timeout)
                // No answer through the link in its short time (that link is closed), no link, or a stuck owner:
                // over ssh in what is left of the deadline.
                case .timeout, .down, .stuck: break
                }
            }
        }
        let rest = boards.indices.filter { boards[$0] == nil }
        let asked = Parallel.map(rest.count, jobs: rest.count) { position in
            perCall(hosts[rest[position]], runner: runner, deadline: deadline)
        }
        for (position, index) in rest.enumerated() { boards[index] = asked[position] }
        if !linked, runner.linkDirectory != nil, asked.contains(where: { $0.state == .ok }) {
            HostLink.start(environment: runner.environment,
                           hosts: rest.indices.filter { asked[$0].state == .ok }.map { hosts[rest[$0]].name })
        }
        return boards.map { $0! }
    }

    /// One host asked the old way: ssh runs the remote `hookctl status --json` over the host's master.
    package static func perCall(_ host: SSHRunner.Host, runner: SSHRunner, deadline: ContinuousClock.Instant) -> HostBoard {
        let command = try! RemoteHookctl.command(["status", "--json"])
        let started = ContinuousClock.now
        let remaining = max(0.1, (deadline - started).inSeconds)
        do {
            let result = try runner.run(host, command: command, timeout: remaining)
            return board(host.name, RemoteHookctl.outcome(result, host: host.destination, limit: runner.answerLimit),
                         latency: (ContinuousClock.now - started).inSeconds)
        } catch SystemError.timedOut {
            return HostBoard(name: host.name, state: .unreachable, latency: (ContinuousClock.now - started).inSeconds,
                             reason: "no answer within \(formatSeconds(remaining))", fix: "check that 'ssh \(host.destination) true' answers quickly")
        } catch {
            return HostBoard(name: host.name, state: .failed, reason: SSHRunner.clean("\(error)"))
        }
    }

    /// The row for one host's finished run.
    package static func board(_ name: String, _ outcome: RemoteHookctl.Outcome, latency: Double) -> HostBoard {
        func problem(_ state: HostBoard.State, _ reason: String, _ fix: String?) -> HostBoard {
            HostBoard(name: name, state: state, latency: latency, reason: reason, fix: fix)
        }
        switch outcome {
        case .unreachable(let reason, let fix): return problem(.unreachable, reason, fix)
        case .missing: return problem(.noHookctl, "hookctl is not installed there", "hookctl deploy \(name)")
        case .tooOld(let said): return problem(.tooOld, "its hookctl is too old for the board across hosts (\(said))", "hookctl deploy \(name)")
        case .failed(let reason, let status): return problem(.failed, "hookctl status failed there (exit \(status)): \(reason)", "ssh \(name) hookctl doctor")
        case .badAnswer(let reason): return problem(.badAnswer, reason, nil)
        case .ok(let bytes):
            do {
                let (entries, lastSeq) = try entries(fromStatus: try RemoteHookctl.json(bytes))
                return HostBoard(name: name, state: .ok, latency: latency, entries: entries, lastSeq: lastSeq)
            } catch let problem as HostProblem {
                return HostBoard(name: name, state: problem.reason.contains("too old") ? .tooOld : .badAnswer, latency: latency,
                                 reason: problem.reason, fix: problem.reason.contains("too old") ? "hookctl deploy \(name)" : nil)
            } catch {
                return problem(.badAnswer, "\(error)", nil)
            }
        }
    }

    /// The agents of a `status --json` document (another host's: every field checked for its type).
    package static func entries(fromStatus json: JSONValue) throws -> ([BoardEntry], Int) {
        guard case .object = json else { throw HostProblem("its answer is not a status document") }
        guard let agents = json["agents"]?.arrayValue, let lastSeq = json["last_seq"]?.intValue else {
            throw HostProblem("its hookctl is too old: its status has no agents and last_seq")
        }
        var entries: [BoardEntry] = []
        entries.reserveCapacity(agents.count)
        for agent in agents {
            guard let entry = entry(agent) else { throw HostProblem("its answer has a malformed agent") }
            entries.append(entry)
        }
        return (entries, lastSeq)
    }

    /// One agent of `status --json` back as a board entry (what the views need of it).
    package static func entry(_ json: JSONValue) -> BoardEntry? {
        guard let key = json["key"]?.stringValue, let agent = json["agent"]?.stringValue,
              let state = json["state"]?.stringValue.flatMap(AgentState.init(rawValue:)),
              let since = json["since"]?.stringValue.flatMap(WallClock.parseISO8601) else { return nil }
        let updated = json["updated_at"]?.stringValue.flatMap(WallClock.parseISO8601) ?? since
        var entry = BoardEntry(key: key, agent: agent, sessionID: json["session_id"]?.stringValue, state: state, since: since,
                               updatedAt: updated, firstSeen: since, lastSeq: json["last_seq"]?.intValue ?? 0,
                               kind: json["kind"]?.stringValue.flatMap(EventKind.init(rawValue:)) ?? .info,
                               agentEvent: json["agent_event"]?.stringValue ?? "", title: json["title"]?.stringValue ?? "",
                               message: json["message"]?.stringValue ?? "", detail: json["detail"]?.stringValue,
                               tmux: json["tmux"].flatMap(TmuxLocation.init(json:)), cwd: json["cwd"]?.stringValue,
                               host: json["host"]?.stringValue ?? "",
                               endReason: json["end_reason"]?.stringValue.flatMap(EndReason.init(rawValue:)))
        entry.project = json["project"]?.stringValue
        entry.branch = json["branch"]?.stringValue
        entry.question = json["question"].flatMap { $0 == .null ? nil : Question(json: $0) }
        return entry
    }

    // MARK: - the cache the tmux segment counts from

    /// Keeps each host's counts (and whether it answered) for `status --format tmux --hosts`.
    package static func writeCache(_ boards: [HostBoard], paths: Paths, now: Double) {
        let hosts: [JSONValue] = boards.map { board in
            .object(JSONObject([("name", .string(board.name)), ("state", .string(board.state.rawValue)),
                                ("needs_input", .int(board.entries.filter { $0.state == .needsInput }.count)),
                                ("failed", .int(board.entries.filter { $0.state == .failed }.count))]))
        }
        let document = JSONValue.object(JSONObject([("at", .double(now)), ("hosts", .array(hosts))]))
        try? FileSystem.makeDirectories(paths.stateDirectory)
        try? FileSystem.writeAtomically(paths.hostsBoardCache, text: JSON.serialize(document) + "\n", mode: 0o600, sync: false)
    }

    /// What the last run or watch left: waiting and failed agents over every host that answered, and
    /// the hosts that did not; nothing when it is older than `maxAge` seconds (or absent, or unreadable).
    package static func cachedCounts(paths: Paths, now: Double, maxAge: Double) -> (needsInput: Int, failed: Int, unanswered: Int) {
        guard let bytes = try? FileSystem.read(paths.hostsBoardCache, limit: 1 << 20), let json = try? JSON.parse(bytes),
              let at = json["at"]?.doubleValue, now - at <= maxAge, let hosts = json["hosts"]?.arrayValue else { return (0, 0, 0) }
        var counts = (needsInput: 0, failed: 0, unanswered: 0)
        for host in hosts {
            if host["state"]?.stringValue == HostBoard.State.ok.rawValue {
                counts.needsInput += max(0, host["needs_input"]?.intValue ?? 0)
                counts.failed += max(0, host["failed"]?.intValue ?? 0)
            } else {
                counts.unanswered += 1
            }
        }
        return counts
    }
}
