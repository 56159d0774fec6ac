/// What `status` and `events` print: the board as JSON for apps, a compact table for people
/// (fitted to the terminal width, phone widths included), and event lines.
package enum BoardView {
    /// Widths below this get the two-line layout (phone terminals).
    package static let narrowWidth = 60

    // MARK: - status

    /// The documented `status --json` document: stable snake_case keys, every key always present.
    package static func statusJSON(_ entries: [BoardEntry], board: BoardState, now: Double, staleAfter: Double,
                                  host: String) -> JSONValue {
        var writer = JSONWriter()
        writeStatusJSON(entries, board: board, now: now, staleAfter: staleAfter, host: host, into: &writer)
        return (try? JSON.parse(writer.bytes)) ?? .null
    }

    /// The `status --json` document written straight out (no tree is built for 200 agents); `more`
    /// adds members at its end.
    package static func writeStatusJSON(_ entries: [BoardEntry], board: BoardState, now: Double, staleAfter: Double, host: String,
                                into writer: inout JSONWriter, more: (inout JSONWriter) -> Void = { _ in }) {
        writer.object { document in
            document.key("generated_at")
            document.string(WallClock.iso8601(now))
            document.key("host")
            document.string(host)
            document.key("last_seq")
            document.int(board.lastSeq)
            document.key("counts")
            var counts = [Int](repeating: 0, count: AgentState.allCases.count)
            for entry in entries { counts[AgentState.allCases.firstIndex(of: entry.state)!] += 1 }
            document.object { object in
                for (state, count) in zip(AgentState.allCases, counts) {
                    object.key(state.rawValue)
                    object.int(count)
                }
            }
            document.key("agents")
            document.array { agents in
                for entry in entries { writeAgentJSON(entry, now: now, staleAfter: staleAfter, into: &agents) }
            }
            more(&document)
        }
    }

    /// How long without an event before `status` calls an agent stale (`--stale-after`).
    package static let defaultStaleAfter: Double = 30 * 60

    package static func agentJSON(_ entry: BoardEntry, now: Double, staleAfter: Double) -> JSONValue {
        var writer = JSONWriter()
        writeAgentJSON(entry, now: now, staleAfter: staleAfter, into: &writer)
        return (try? JSON.parse(writer.bytes)) ?? .null
    }

    /// One agent of `status --json` (also `jump --json`'s and `reply --json`'s `agent`).
    package static func writeAgentJSON(_ entry: BoardEntry, now: Double, staleAfter: Double, into writer: inout JSONWriter) {
        writer.object { agent in
            agent.key("key")
            agent.string(entry.key)
            agent.key("agent")
            agent.string(entry.agent)
            agent.key("state")
            agent.string(entry.state.rawValue)
            agent.key("stale")
            agent.bool(entry.isStale(now: now, staleAfter: staleAfter))
            agent.key("since")
            agent.string(WallClock.iso8601(entry.since))
            agent.key("updated_at")
            agent.string(WallClock.iso8601(entry.updatedAt))
            agent.key("session_id")
            agent.string(entry.sessionID)
            agent.key("tmux")
            if let location = entry.tmux {
                agent.object { tmux in
                    for (key, value) in location.jsonFields(fixedShape: true) {
                        tmux.key(key)
                        tmux.value(value)
                    }
                }
            } else {
                agent.null()
            }
            agent.key("cwd")
            agent.string(entry.cwd)
            agent.key("project")
            agent.string(entry.projectName)
            agent.key("branch")
            agent.string(entry.branch)
            agent.key("title")
            agent.string(entry.title)
            agent.key("message")
            agent.string(entry.message)
            agent.key("kind")
            agent.string(entry.kind.rawValue)
            agent.key("agent_event")
            agent.string(entry.agentEvent)
            agent.key("detail")
            agent.string(entry.detail)
            agent.key("end_reason")
            agent.string(entry.endReason?.rawValue)
            agent.key("last_seq")
            agent.int(entry.lastSeq)
            agent.key("host")
            agent.string(entry.host)
            agent.key("question")
            if let question = entry.question { agent.value(question.json) } else { agent.null() }
        }
    }

    /// The board's lines, states coloured: agent-written cells are made inert before they are measured.
    /// Each agent shows its state, name, project (and branch when it tells rows apart or is not the
    /// usual one), where it runs as a target you can type (`session:window`), its age, and its message;
    /// a waiting agent's question is shown whole with its options, wrapped to the width, never cut.
    /// `hosts`: each entry's host label (`status --hosts`): a HOST column in the table, the label
    /// before the window in the cards.
    package static func statusLines(_ entries: [BoardEntry], now: Double, staleAfter: Double,
                                   layout: TerminalLayout, selected: Int? = nil, hosts: [String]? = nil) -> [TerminalText] {
        let width = max(20, layout.width)
        let narrow = width < narrowWidth
        let projects = entries.map(\.projectName)
        let shared = sharedProjects(projects, askedFor: entries.map { $0.branch.map { !$0.isEmpty } ?? false })
        var rows: [Row] = []
        rows.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            rows.append(Row(state: label(entry, now: now, staleAfter: staleAfter, short: narrow),
                            style: style(entry, now: now, staleAfter: staleAfter),
                            agent: inert(entry.agent),
                            project: inert(projectLabel(projects[index], branch: entry.branch, alwaysBranch: shared[index])),
                            host: hosts.map { inert($0[index]) } ?? "",
                            place: inert(entry.tmux.map(place) ?? ""),
                            since: relative(now - entry.since),
                            message: inert(entry.message.isEmpty ? entry.title : entry.message),
                            question: entry.state == .needsInput ? entry.question : nil))
        }
        var output: [TerminalText] = []
        func mark(_ index: Int) -> String { selected == nil ? "" : (selected == index ? ">" : " ") }
        let markWidth = selected == nil ? 0 : 1
        if narrow {
            let stateWidth = rows.map { columns($0.state) }.max() ?? 0
            let indent = String(repeating: " ", count: markWidth + 2)
            for (index, row) in rows.enumerated() {
                // Line 1: state, agent, age, then the project in what is left.
                let inner = width - markWidth
                let agent = fit(row.agent, max(4, min(columns(row.agent), inner - stateWidth - columns(row.since) - 4)))
                var line = " " + agent + " " + row.since
                let room = inner - stateWidth - columns(line) - 3
                if !row.project.isEmpty, room >= 4 { line += " · " + layout.fit(row.project, room) }
                output.append(TerminalText(mark(index)) + TerminalText(pad(row.state, stateWidth), style: row.style) + trimEnd(line))
                let where_ = [row.host, row.place].filter { !$0.isEmpty }.joined(separator: " · ")
                if !where_.isEmpty { output.append(TerminalText(indent + layout.fit(where_, width - indent.count))) }
                output += detail(row.question, message: row.message, indent: indent, width: width, layout: layout)
            }
            return output
        }
        // From 60 columns: a table of who and where, each agent's message or question on the lines
        // under its row across the full width (a message column beside four others would be too narrow).
        let headers = (state: "STATE", agent: "AGENT", project: "PROJECT", place: "WINDOW", since: "AGE")
        let stateWidth = max(headers.state.count, rows.map { columns($0.state) }.max() ?? 0)
        let hostWidth = hosts == nil ? 0 : max(4, min(HostRules.longestName, rows.map { columns($0.host) }.max() ?? 0))
        let agentWidth = max(headers.agent.count, min(12, rows.map { columns($0.agent) }.max() ?? 0))
        let sinceWidth = max(headers.since.count, rows.map { columns($0.since) }.max() ?? 0)
        var projectWidth = max(headers.project.count, min(24, rows.map { columns($0.project) }.max() ?? 0))
        var placeWidth = max(headers.place.count, rows.map { columns($0.place) }.max() ?? 0)
        let fixed = markWidth + stateWidth + agentWidth + sinceWidth + 4 * 2 + (hosts == nil ? 0 : hostWidth + 2)
        // The window gives way first (down to 16 columns), then the project.
        placeWidth = max(min(placeWidth, 16), min(placeWidth, width - fixed - projectWidth))
        projectWidth = max(headers.project.count, min(projectWidth, width - fixed - placeWidth))
        func rest(_ host: String, _ agent: String, _ project: String, _ place: String, _ since: String) -> String {
            // One String grown in place: joining padded copies cost more than the rest of the row.
            var line = ""
            line.reserveCapacity(width + 16)
            func cell(_ text: String, _ cellWidth: Int) {
                let cut = fit(text, cellWidth)
                line += "  "
                line += cut
                let gap = cellWidth - columns(cut)
                if gap > 0 { line += String(repeating: " ", count: gap) }
            }
            if hosts != nil { cell(host, hostWidth) }
            cell(agent, agentWidth)
            cell(project, projectWidth)
            cell(place, placeWidth)
            line += "  "
            line += since
            return trimEnd(line)
        }
        let indent = String(repeating: " ", count: markWidth + 2)
        output.append(TerminalText(String(repeating: " ", count: markWidth)) + TerminalText(pad(headers.state, stateWidth), style: .bold)
                      + rest("HOST", headers.agent, headers.project, headers.place, headers.since))
        for (index, row) in rows.enumerated() {
            output.append(TerminalText(mark(index)) + TerminalText(pad(row.state, stateWidth), style: row.style)
                          + rest(row.host, row.agent, row.project, row.place.isEmpty ? "-" : row.place, row.since))
            output += detail(row.question, message: row.message, indent: indent, width: width, layout: layout)
        }
        return output
    }

    /// One agent's cells on the board (a struct, not a tuple: an array of tuples has its metadata made at
    /// run time, which cost more than the rows).
    private struct Row {
        var state: String
        var style: TerminalStyle?
        var agent: String
        var project: String
        var host: String
        var place: String
        var since: String
        var message: String
        var question: Question?
    }

    /// For each row whose `askedFor` is set, whether another row has the same project (then its branch
    /// tells them apart). Found by sorting positions by project, only when some row asks.
    package static func sharedProjects(_ projects: [String?], askedFor: [Bool]) -> [Bool] {
        var shared = [Bool](repeating: false, count: projects.count)
        guard askedFor.contains(true) else { return shared }
        let order = stableOrder(count: projects.count) { (projects[$0] ?? "") < (projects[$1] ?? "") }
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count, projects[order[end]] == projects[order[start]] { end += 1 }
            if end - start > 1, projects[order[start]] != nil {
                for position in order[start..<end] { shared[position] = true }
            }
            start = end
        }
        return shared
    }

    /// One line naming an agent: `claude · api (feat) · sshido-9B95BD2A:build · needs_input 3m`
    /// (`peek`'s header, `jump`'s report), agent text made inert, fitted to `width` on a terminal.
    package static func headline(_ entry: BoardEntry, now: Double, width: Int, layout: TerminalLayout) -> TerminalText {
        let parts = [inert(entry.agent), inert(projectLabel(entry, alwaysBranch: false)), inert(place(entry))].filter { !$0.isEmpty }
        let state = "\(entry.state.rawValue) \(relative(now - entry.since))"
        let head = parts.joined(separator: " · ") + " · "
        let room = max(1, width - columns(state))
        return TerminalText(layout.fit(head, room), style: .bold) + TerminalText(state, style: style(entry, now: now, staleAfter: .infinity))
    }

    /// Agent-written text made inert and put on one line.
    package static func inert(_ text: String) -> String { TerminalText.visible(Text.singleLine(text), keepLineBreaks: false) }

    /// Under an agent's row: its question whole (wrapped, never cut) with its options, else its message on one line.
    package static func detail(_ question: Question?, message: String, indent: String, width: Int, layout: TerminalLayout) -> [TerminalText] {
        let room = max(10, width - indent.count)
        guard let question else {
            return message.isEmpty ? [] : [TerminalText(indent + layout.fit(message, room))]
        }
        return questionLines(question, width: room).map { TerminalText(indent + $0) }
    }

    /// A question as lines of at most `width` columns: its text wrapped, then its options packed
    /// `1 Yes · 2 No` as they fit, an option longer than a line wrapped under its number. Nothing is cut.
    package static func questionLines(_ question: Question, width: Int) -> [String] {
        var text = inert(question.text)
        if question.count > 1 { text += " (1 of \(question.count) questions)" }
        var lines = Terminal.wrap(text, columns: width)
        var line = ""
        for option in question.options {
            // An option whose number the screen has not said yet is shown without one (`• label`).
            let number = option.n.map { "\($0) " } ?? "• "
            let item = number + inert(option.label)
            let separator = line.isEmpty ? "" : " · "
            if columns(line) + columns(separator) + columns(item) <= width {
                line += separator + item
                continue
            }
            if !line.isEmpty { lines.append(line) }
            line = ""
            if columns(item) <= width {
                line = item
            } else {
                // Wrapped under its label: the number stands out on the first line.
                let hanging = String(repeating: " ", count: columns(number))
                let parts = Terminal.wrap(inert(option.label), columns: max(1, width - hanging.count))
                lines.append(number + (parts.first ?? ""))
                lines += parts.dropFirst().map { hanging + $0 }
            }
        }
        if !line.isEmpty { lines.append(line) }
        if question.options.contains(where: { $0.n == nil }) { lines += Terminal.wrap("(more choices on the screen)", columns: width) }
        if question.multiSelect, !question.options.isEmpty { lines += Terminal.wrap("(several may be chosen)", columns: width) }
        return lines
    }

    /// The project, with its branch when it tells rows apart (`alwaysBranch`) or is not a usual main branch.
    package static func projectLabel(_ entry: BoardEntry, alwaysBranch: Bool) -> String {
        projectLabel(entry.projectName, branch: entry.branch, alwaysBranch: alwaysBranch)
    }

    package static func projectLabel(_ project: String?, branch: String?, alwaysBranch: Bool) -> String {
        guard let project else { return "" }
        guard let branch, !branch.isEmpty else { return project }
        if alwaysBranch || !["main", "master", "trunk"].contains(branch) { return "\(project) (\(branch))" }
        return project
    }

    /// The colour of a state: what needs the user stands out, what is over recedes.
    package static func style(_ entry: BoardEntry, now: Double, staleAfter: Double) -> TerminalStyle? {
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
    package static func label(_ entry: BoardEntry, now: Double, staleAfter: Double, short: Bool) -> String {
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

    /// Where the agent runs, as a target `peek`, `reply` and `jump` take: `session:window` in tmux
    /// (the window's name when the user gave it one, else its index; the pane id only when neither is
    /// known), else its project directory's name.
    package static func place(_ entry: BoardEntry) -> String {
        if let tmux = entry.tmux { return place(tmux) }
        if let cwd = entry.cwd { return FileSystem.fileName(of: cwd) }
        return "-"
    }

    /// `session:window`, with `?` after it when the pane came from an inherited environment (Codex's
    /// app-server daemon: it may be another Codex's pane, see `InheritedPane`).
    package static func place(_ tmux: TmuxLocation) -> String {
        tmux.paneInherited ? placeName(tmux) + "?" : placeName(tmux)
    }

    /// `session:window` as a target names it (no mark).
    package static func placeName(_ tmux: TmuxLocation) -> String {
        // Empty names (a tmux that answered nothing) are no names: never a bare `:`.
        guard let session = [tmux.session, tmux.sessionID].lazy.compactMap({ $0 }).first(where: { !$0.isEmpty })
        else { return tmux.pane }
        if let name = tmux.chosenWindowName, !name.contains(":") { return "\(session):\(name)" }
        if let window = tmux.window, !window.isEmpty { return "\(session):\(window)" }
        return "\(session):\(tmux.pane)"
    }

    /// `45s`, `3m`, `2h`, `4d`.
    package static func relative(_ seconds: Double) -> String {
        let value = max(0, Int(seconds))
        if value < 60 { return "\(value)s" }
        if value < 3600 { return "\(value / 60)m" }
        if value < 86400 { return "\(value / 3600)h" }
        return "\(value / 86400)d"
    }

    // MARK: - events

    /// An event as people read it: one line from 60 columns up (cut to fit on a terminal), a card of
    /// two lines below (what happened, then the message), so a phone still shows the message. An event
    /// recorded but not pushed says which rule held it (`not pushed: repeat`).
    package static func eventLines(_ event: Event, layout: TerminalLayout) -> [TerminalText] {
        var place = ""
        if let tmux = event.tmux { place = self.place(tmux) }
        if let project = event.project?.name ?? event.cwd.map(FileSystem.fileName(of:)), !project.isEmpty {
            place = place.isEmpty ? project : project + " " + place
        }
        place = inert(place)
        let message = inert(event.message.isEmpty ? event.title : event.message)
        let held = event.quietReason.map { "not pushed: \($0.rawValue)" }
        let kindStyle = eventStyle(event.kind)
        let width = max(20, layout.width)
        let kind = event.kind.rawValue
        if width < narrowWidth {
            let time = String(localTime(event.time).suffix(8))
            // The head is measured after the agent's name was made inert (an escape shows as `^[`, two columns).
            var head = "#\(event.seq ?? 0) \(time) \(inert(event.agent)) "
            if layout.cuts, columns(head) + columns(kind) > width { head = fit(head, max(1, width - columns(kind) - 1)) + " " }
            let room = width - columns(head) - columns(kind) - 1
            let tail = place.isEmpty || room < 4 ? "" : " " + layout.fit(place, room)
            var lines = [TerminalText(head) + TerminalText(kind, style: kindStyle) + tail]
            if let held { lines.append(TerminalText("  " + layout.fit(held, width - 2), style: .dim)) }
            if !message.isEmpty { lines.append(TerminalText("  " + layout.fit(message, width - 2))) }
            return lines
        }
        let head = "#\(event.seq ?? 0) \(localTime(event.time)) \(inert(event.agent)) "
        let mark = held.map { " (\($0))" } ?? ""
        var rest = [place, message].filter { !$0.isEmpty }.joined(separator: " ")
        if !rest.isEmpty { rest = " " + rest }
        if layout.cuts, columns(head) + columns(kind) + columns(mark) + columns(rest) > width {
            if columns(head) + columns(kind) + columns(mark) >= width { return [TerminalText(fit(head + kind + mark + rest, width))] }
            let room = width - columns(head) - columns(kind) - columns(mark)
            return [TerminalText(head) + TerminalText(kind, style: kindStyle) + TerminalText(mark, style: .dim) + fit(rest, room)]
        }
        return [TerminalText(head) + TerminalText(kind, style: kindStyle) + TerminalText(mark, style: .dim) + rest]
    }

    package static func eventStyle(_ kind: EventKind) -> TerminalStyle? {
        switch kind {
        case .needsInput: return .boldYellow
        case .failed: return .boldRed
        case .done: return .green
        default: return nil
        }
    }

    /// `11-29 13:02:29` in the host's time zone.
    package static func localTime(_ epoch: Double) -> String {
        var seconds = time_t(epoch.rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    package static func pad(_ text: String, _ width: Int) -> String { Terminal.pad(text, width) }

    /// Terminal columns a text takes (see `Terminal.columns`).
    package static func columns(_ text: String) -> Int { Terminal.columns(text) }

    /// Cuts `text` to `width` terminal columns (see `Terminal.fit`).
    package static func fit(_ text: String, _ width: Int) -> String { Terminal.fit(text, width) }

    package static func trimEnd(_ text: String) -> String { Terminal.trimEnd(text) }

    /// The terminal width to fit (see `Terminal.width`).
    package static func width(option: Int?, environment: [String: String], terminal: Int32?) -> Int {
        Terminal.width(option: option, environment: environment, terminal: terminal)
    }
}
