/// What `status` and `events` print: the board as JSON for apps, a compact table for people
/// (fitted to the terminal width, phone widths included), and event lines.
public enum BoardView {
    /// Widths below this get the two-line layout (phone terminals).
    public static let narrowWidth = 60

    // MARK: - status

    /// The documented `status --json` document: stable snake_case keys, every key always present.
    public static func statusJSON(_ entries: [BoardEntry], board: BoardState, now: Double, staleAfter: Double,
                                  host: String) -> JSONValue {
        var counts = JSONObject()
        for state in AgentState.allCases { counts[state.rawValue] = .int(entries.filter { $0.state == state }.count) }
        return .object(JSONObject([
            ("generated_at", .string(Clock.iso8601(now))),
            ("host", .string(host)),
            ("last_seq", .int(board.lastSeq)),
            ("counts", .object(counts)),
            ("agents", .array(entries.map { agentJSON($0, now: now, staleAfter: staleAfter) })),
        ]))
    }

    public static func agentJSON(_ entry: BoardEntry, now: Double, staleAfter: Double) -> JSONValue {
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
            ("since", .string(Clock.iso8601(entry.since))),
            ("updated_at", .string(Clock.iso8601(entry.updatedAt))),
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
        ]))
    }

    /// The human board: a table at 60 columns and more, two lines per session below.
    public static func statusTable(_ entries: [BoardEntry], now: Double, staleAfter: Double, width: Int) -> String {
        let width = max(20, width)
        let narrow = width < narrowWidth
        let rows = entries.map { entry in
            (state: label(entry, now: now, staleAfter: staleAfter, short: narrow),
             agent: Text.truncate(entry.agent, characters: 8),
             place: place(entry),
             since: relative(now - entry.since),
             message: entry.message.isEmpty ? entry.title : entry.message)
        }
        var output = ""
        if narrow {
            let stateWidth = rows.map(\.state.count).max() ?? 0
            let agentWidth = rows.map(\.agent.count).max() ?? 0
            let sinceWidth = rows.map(\.since.count).max() ?? 0
            for row in rows {
                var line = pad(row.state, stateWidth) + " " + pad(row.agent, agentWidth) + " " + pad(row.since, sinceWidth)
                let room = width - line.count - 1
                if room >= 4 { line += " " + Text.truncate(row.place, characters: room) }
                output += trimEnd(line) + "\n"
                if !row.message.isEmpty { output += "  " + Text.truncate(row.message, characters: width - 2) + "\n" }
            }
            return output
        }
        let headers = (state: "STATE", agent: "AGENT", place: "SESSION", since: "SINCE", message: "MESSAGE")
        let stateWidth = max(headers.state.count, rows.map(\.state.count).max() ?? 0)
        let agentWidth = max(headers.agent.count, rows.map(\.agent.count).max() ?? 0)
        let sinceWidth = max(headers.since.count, rows.map(\.since.count).max() ?? 0)
        var placeWidth = max(headers.place.count, min(24, rows.map(\.place.count).max() ?? 0))
        let fixed = stateWidth + agentWidth + sinceWidth + 4 * 2
        // The message gets what is left, but at least 20 columns: the session column gives way first.
        placeWidth = max(headers.place.count, min(placeWidth, width - fixed - 20))
        let messageWidth = max(0, width - fixed - placeWidth)
        func line(_ cells: (state: String, agent: String, place: String, since: String, message: String)) -> String {
            let text = pad(cells.state, stateWidth) + "  " + pad(cells.agent, agentWidth) + "  "
                + pad(Text.truncate(cells.place, characters: placeWidth), placeWidth) + "  "
                + pad(cells.since, sinceWidth) + "  " + Text.truncate(cells.message, characters: messageWidth)
            return trimEnd(text)
        }
        output += line(headers) + "\n"
        for row in rows { output += line(row) + "\n" }
        return output
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
    public static func relative(_ seconds: Double) -> String {
        let value = max(0, Int(seconds))
        if value < 60 { return "\(value)s" }
        if value < 3600 { return "\(value / 60)m" }
        if value < 86400 { return "\(value / 3600)h" }
        return "\(value / 86400)d"
    }

    // MARK: - events

    /// One readable line per event: `#12 11-29 13:02:29 claude needs_input sshido-9B95:%3 Claude needs…`.
    public static func eventLine(_ event: Event, width: Int) -> String {
        var place = ""
        if let tmux = event.tmux { place = (tmux.session ?? tmux.sessionID).map { "\($0):\(tmux.pane)" } ?? tmux.pane }
        else if let cwd = event.cwd { place = FileSystem.fileName(of: cwd) }
        let message = Text.singleLine(event.message.isEmpty ? event.title : event.message)
        var parts = ["#\(event.seq ?? 0)", localTime(event.time), event.agent, event.kind.rawValue]
        if !place.isEmpty { parts.append(place) }
        if !message.isEmpty { parts.append(message) }
        return Text.truncate(parts.joined(separator: " "), characters: max(20, width))
    }

    /// `11-29 13:02:29` in the host's time zone.
    static func localTime(_ epoch: Double) -> String {
        var seconds = time_t(epoch.rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        let count = text.count
        return count >= width ? text : text + String(repeating: " ", count: width - count)
    }

    static func trimEnd(_ text: String) -> String {
        var slice = Substring(text)
        while slice.last == " " { slice.removeLast() }
        return String(slice)
    }

    /// The terminal width to fit: `--width`, else `COLUMNS`, else the terminal's own size, else 80.
    public static func width(option: Int?, environment: [String: String], terminal: Int32?) -> Int {
        if let option, option > 0 { return option }
        if let columns = environment["COLUMNS"].flatMap({ Int(Text.trimmed($0)) }), columns > 0 { return columns }
        if let terminal, isatty(terminal) != 0 {
            var size = winsize()
            if ioctl(terminal, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        }
        return 80
    }
}
