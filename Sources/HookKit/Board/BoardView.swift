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
            ("question", entry.question?.json ?? .null),
        ]))
    }

    /// The human board: a table at 60 columns and more, two lines per session below.
    public static func statusTable(_ entries: [BoardEntry], now: Double, staleAfter: Double, width: Int) -> String {
        let width = max(20, width)
        let narrow = width < narrowWidth
        let rows = entries.map { entry in
            (state: label(entry, now: now, staleAfter: staleAfter, short: narrow),
             agent: fit(entry.agent, 8),
             place: place(entry),
             since: relative(now - entry.since),
             message: entry.message.isEmpty ? entry.title : entry.message)
        }
        var output = ""
        if narrow {
            let stateWidth = rows.map { columns($0.state) }.max() ?? 0
            let agentWidth = rows.map { columns($0.agent) }.max() ?? 0
            let sinceWidth = rows.map { columns($0.since) }.max() ?? 0
            for row in rows {
                var line = pad(row.state, stateWidth) + " " + pad(row.agent, agentWidth) + " " + pad(row.since, sinceWidth)
                let room = width - columns(line) - 1
                if room >= 4 { line += " " + fit(row.place, room) }
                output += trimEnd(line) + "\n"
                if !row.message.isEmpty { output += "  " + fit(row.message, width - 2) + "\n" }
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
        func line(_ cells: (state: String, agent: String, place: String, since: String, message: String)) -> String {
            let text = pad(cells.state, stateWidth) + "  " + pad(cells.agent, agentWidth) + "  "
                + pad(fit(cells.place, placeWidth), placeWidth) + "  "
                + pad(cells.since, sinceWidth) + "  " + fit(cells.message, messageWidth)
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
        return fit(parts.joined(separator: " "), max(20, width))
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
        let used = columns(text)
        return used >= width ? text : text + String(repeating: " ", count: width - used)
    }

    /// Terminal columns a text takes: East Asian wide characters and emoji take two.
    public static func columns(_ text: String) -> Int {
        var total = 0
        for character in text { total += columns(character) }
        return total
    }

    static func columns(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.isASCII { return 1 }
        if first.properties.isEmojiPresentation || character.unicodeScalars.contains("\u{FE0F}") { return 2 }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// Cuts `text` to at most `width` terminal columns on a character boundary, ending with `…` when cut.
    public static func fit(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        guard columns(text) > width else { return text }
        var output = ""
        var used = 0
        for character in text {
            let size = columns(character)
            if used + size > width - 1 { break }
            output.append(character)
            used += size
        }
        return output + "…"
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
