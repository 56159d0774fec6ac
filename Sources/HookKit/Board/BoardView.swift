/// What `status` and `events` print: the board as JSON for apps, a compact table for people
/// (fitted to the terminal width, phone widths included), and event lines.
enum BoardView {
    /// Widths below this get the two-line layout (phone terminals).
    static let narrowWidth = 60

    // MARK: - status

    /// The documented `status --json` document: stable snake_case keys, every key always present.
    static func statusJSON(_ entries: [BoardEntry], board: BoardState, now: Double, staleAfter: Double,
                                  host: String) -> JSONValue {
        var counts = JSONObject()
        for state in AgentState.allCases { counts[state.rawValue] = .int(entries.filter { $0.state == state }.count) }
        return .object(JSONObject([
            ("generated_at", .string(WallClock.iso8601(now))),
            ("host", .string(host)),
            ("last_seq", .int(board.lastSeq)),
            ("counts", .object(counts)),
            ("agents", .array(entries.map { agentJSON($0, now: now, staleAfter: staleAfter) })),
        ]))
    }

    static func agentJSON(_ entry: BoardEntry, now: Double, staleAfter: Double) -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        var tmux: JSONValue = .null
        if let location = entry.tmux {
            tmux = .object(JSONObject([
                ("session", text(location.session)), ("session_id", text(location.sessionID)),
                ("window", text(location.window)), ("pane", .string(location.pane)), ("socket", text(location.socket)),
            ]))
        }
        return .object(JSONObject([
            ("key", .string(entry.key)),
            ("agent", .string(entry.agent)),
            ("state", .string(entry.state.rawValue)),
            ("stale", .bool(entry.isStale(now: now, staleAfter: staleAfter))),
            ("since", .string(WallClock.iso8601(entry.since))),
            ("updated_at", .string(WallClock.iso8601(entry.updatedAt))),
            ("session_id", text(entry.sessionID)),
            ("tmux", tmux),
            ("cwd", text(entry.cwd)),
            ("project", text(entry.cwd.map(FileSystem.fileName(of:)))),
            ("title", .string(entry.title)),
            ("message", .string(entry.message)),
            ("kind", .string(entry.kind.rawValue)),
            ("agent_event", .string(entry.agentEvent)),
            ("detail", text(entry.detail)),
            ("end_reason", text(entry.endReason?.rawValue)),
            ("last_seq", .int(entry.lastSeq)),
            ("host", .string(entry.host)),
            ("question", entry.question?.json ?? .null),
        ]))
    }

    /// The board's lines, states coloured: agent-written cells are made inert before they are measured.
    static func statusLines(_ entries: [BoardEntry], now: Double, staleAfter: Double,
                                   layout: TerminalLayout) -> [TerminalText] {
        let width = max(20, layout.width)
        let narrow = width < narrowWidth
        func inert(_ text: String) -> String { TerminalText.visible(Text.singleLine(text), keepLineBreaks: false) }
        let rows = entries.map { entry in
            (state: label(entry, now: now, staleAfter: staleAfter, short: narrow),
             style: style(entry, now: now, staleAfter: staleAfter),
             agent: fit(inert(entry.agent), 8),
             place: inert(place(entry)),
             since: relative(now - entry.since),
             message: inert(entry.message.isEmpty ? entry.title : entry.message))
        }
        var output: [TerminalText] = []
        if narrow {
            let stateWidth = rows.map { columns($0.state) }.max() ?? 0
            let agentWidth = rows.map { columns($0.agent) }.max() ?? 0
            let sinceWidth = rows.map { columns($0.since) }.max() ?? 0
            for row in rows {
                var line = " " + pad(row.agent, agentWidth) + " " + pad(row.since, sinceWidth)
                let room = width - stateWidth - columns(line) - 1
                if room >= 4 { line += " " + layout.fit(row.place, room) }
                output.append(TerminalText(pad(row.state, stateWidth), style: row.style) + trimEnd(line))
                if !row.message.isEmpty { output.append(TerminalText("  " + layout.fit(row.message, width - 2))) }
            }
            return output
        }
        let headers = (state: "STATE", agent: "AGENT", place: "SESSION", since: "SINCE", message: "MESSAGE")
        let stateWidth = max(headers.state.count, rows.map { columns($0.state) }.max() ?? 0)
        let agentWidth = max(headers.agent.count, rows.map { columns($0.agent) }.max() ?? 0)
        let sinceWidth = max(headers.since.count, rows.map { columns($0.since) }.max() ?? 0)
        var placeWidth = max(headers.place.count, min(24, rows.map { columns($0.place) }.max() ?? 0))
        let fixed = stateWidth + agentWidth + sinceWidth + 4 * 2
        // The message gets what is left, but at least 20 columns: the session column gives way first.
        placeWidth = max(headers.place.count, min(placeWidth, width - fixed - 20))
        let messageWidth = max(0, width - fixed - placeWidth)
        func rest(_ agent: String, _ place: String, _ since: String, _ message: String) -> String {
            trimEnd("  " + pad(agent, agentWidth) + "  " + pad(fit(place, placeWidth), placeWidth) + "  "
                    + pad(since, sinceWidth) + "  " + layout.fit(message, messageWidth))
        }
        output.append(TerminalText(pad(headers.state, stateWidth), style: .bold)
                      + rest(headers.agent, headers.place, headers.since, headers.message))
        for row in rows {
            output.append(TerminalText(pad(row.state, stateWidth), style: row.style) + rest(row.agent, row.place, row.since, row.message))
        }
        return output
    }

    /// The colour of a state: what needs the user stands out, what is over recedes.
    static func style(_ entry: BoardEntry, now: Double, staleAfter: Double) -> TerminalStyle? {
        if entry.isStale(now: now, staleAfter: staleAfter) { return .yellow }
        switch entry.state {
        case .needsInput: return .boldYellow
        case .working: return .cyan
        case .failed: return .boldRed
        case .done: return .green
        case .idle: return nil
        case .ended: return .dim
        }
    }

    /// The state as the table shows it: `stale` for a long-silent `working`; short words on phones.
    static func label(_ entry: BoardEntry, now: Double, staleAfter: Double, short: Bool) -> String {
        if entry.isStale(now: now, staleAfter: staleAfter) { return "stale" }
        guard short else { return entry.state.rawValue }
        switch entry.state {
        case .needsInput: return "INPUT"
        case .working: return "work"
        case .failed: return "FAIL"
        case .done: return "done"
        case .idle: return "idle"
        case .ended: return "end"
        }
    }

    /// Where the agent runs: `session:%pane` in tmux, else its project directory's name.
    static func place(_ entry: BoardEntry) -> String {
        if let tmux = entry.tmux {
            if let session = tmux.session ?? tmux.sessionID { return "\(session):\(tmux.pane)" }
            return tmux.pane
        }
        if let cwd = entry.cwd { return FileSystem.fileName(of: cwd) }
        return "-"
    }

    /// `45s`, `3m`, `2h`, `4d`.
    static func relative(_ seconds: Double) -> String {
        let value = max(0, Int(seconds))
        if value < 60 { return "\(value)s" }
        if value < 3600 { return "\(value / 60)m" }
        if value < 86400 { return "\(value / 3600)h" }
        return "\(value / 86400)d"
    }

    // MARK: - events

    /// An event as people read it: one line from 60 columns up (cut to fit on a terminal), a card of
    /// two lines below (what happened, then the message), so a phone still shows the message.
    static func eventLines(_ event: Event, layout: TerminalLayout) -> [TerminalText] {
        func inert(_ text: String) -> String { TerminalText.visible(Text.singleLine(text), keepLineBreaks: false) }
        var place = ""
        if let tmux = event.tmux { place = (tmux.session ?? tmux.sessionID).map { "\($0):\(tmux.pane)" } ?? tmux.pane }
        else if let cwd = event.cwd { place = FileSystem.fileName(of: cwd) }
        place = inert(place)
        let message = inert(event.message.isEmpty ? event.title : event.message)
        let kindStyle = eventStyle(event.kind)
        let width = max(20, layout.width)
        if width < narrowWidth {
            let time = String(localTime(event.time).suffix(8))
            var head = "#\(event.seq ?? 0) \(time) \(inert(event.agent)) "
            let kind = event.kind.rawValue
            let room = width - columns(head) - columns(kind) - 1
            let tail = place.isEmpty || room < 4 ? "" : " " + layout.fit(place, room)
            head = layout.fit(head, width)
            var lines = [TerminalText(head) + TerminalText(kind, style: kindStyle) + tail]
            if !message.isEmpty { lines.append(TerminalText("  " + layout.fit(message, width - 2))) }
            return lines
        }
        let head = "#\(event.seq ?? 0) \(localTime(event.time)) \(inert(event.agent)) "
        var rest = [place, message].filter { !$0.isEmpty }.joined(separator: " ")
        if !rest.isEmpty { rest = " " + rest }
        let kind = event.kind.rawValue
        if layout.cuts, columns(head) + columns(kind) + columns(rest) > width {
            let line = fit(head + kind + rest, width)
            if columns(head) + columns(kind) >= columns(line) { return [TerminalText(line)] }
            return [TerminalText(head) + TerminalText(kind, style: kindStyle) + String(line.dropFirst(head.count + kind.count))]
        }
        return [TerminalText(head) + TerminalText(kind, style: kindStyle) + rest]
    }

    static func eventStyle(_ kind: EventKind) -> TerminalStyle? {
        switch kind {
        case .needsInput: return .boldYellow
        case .failed: return .boldRed
        case .done: return .green
        default: return nil
        }
    }

    /// `11-29 13:02:29` in the host's time zone.
    static func localTime(_ epoch: Double) -> String {
        var seconds = time_t(epoch.rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    static func pad(_ text: String, _ width: Int) -> String { Terminal.pad(text, width) }

    /// Terminal columns a text takes (see `Terminal.columns`).
    static func columns(_ text: String) -> Int { Terminal.columns(text) }

    /// Cuts `text` to `width` terminal columns (see `Terminal.fit`).
    static func fit(_ text: String, _ width: Int) -> String { Terminal.fit(text, width) }

    static func trimEnd(_ text: String) -> String { Terminal.trimEnd(text) }

    /// The terminal width to fit (see `Terminal.width`).
    static func width(option: Int?, environment: [String: String], terminal: Int32?) -> Int {
        Terminal.width(option: option, environment: environment, terminal: terminal)
    }
}
