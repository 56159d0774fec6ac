/// The human-readable views of doctor, test, setup, outbox and session list, as lines fitted to a
/// layout: a table from 60 columns up, cards below (a phone). Every cell is made inert
/// (`TerminalText.visible`) before it is measured; commands meant to be copied (event ids, fixes)
/// are never wrapped or cut, whatever the width.
package enum HumanViews {
    /// One line, made inert: control characters and bidi shown, line breaks as spaces.
    package static func inert(_ text: String) -> String {
        TerminalText.visible(Text.singleLine(text), keepLineBreaks: false)
    }

    /// `MARK  NAME  message…` with the message wrapped under its column, or on a phone `MARK NAME`
    /// then the message below; a fix goes on its own line, whole.
    package static func card(mark: TerminalText, markWidth: Int, name: String, nameWidth: Int, message: String,
                     fix: String?, layout: TerminalLayout, narrow: Bool? = nil) -> [TerminalText] {
        let name = inert(name), message = inert(message)
        let markCell = mark + String(repeating: " ", count: max(0, markWidth - mark.columns))
        var lines: [TerminalText] = []
        let indent: String
        if narrow ?? layout.isNarrow {
            lines.append(markCell + " " + name)
            indent = "  "
            if !message.isEmpty { lines += layout.wrap(message, layout.width - 2).map { TerminalText(indent + $0) } }
        } else {
            let nameCell = Terminal.pad(name, nameWidth) + (nameWidth > 0 ? "  " : " ")
            indent = String(repeating: " ", count: markWidth + 2 + Terminal.columns(nameCell))
            let wrapped = layout.wrap(message, max(20, layout.width - indent.count))
            lines.append(markCell + "  " + nameCell + (wrapped.first ?? ""))
            lines += wrapped.dropFirst().map { TerminalText(indent + $0) }
        }
        if let fix { lines.append(TerminalText(indent) + TerminalText("fix:", style: .bold) + " " + inert(fix)) }
        return lines
    }

    /// A sentence wrapped to the width; a command it ends with (`…: hookctl setup`) goes on a line of
    /// its own, whole, to be copied.
    package static func sentence(_ text: String, layout: TerminalLayout) -> [TerminalText] {
        let text = inert(text)
        if let colon = text.ranges(of: ": hookctl ").last {
            let prose = String(text[..<colon.lowerBound]) + ":"
            let command = String(text[text.index(colon.lowerBound, offsetBy: 2)...])
            return layout.wrap(prose, layout.width).map { TerminalText($0) } + [TerminalText("  " + command)]
        }
        return layout.wrap(text, layout.width).map { TerminalText($0) }
    }

    // MARK: - doctor

    package static func doctor(_ checks: [DoctorCheck], layout: TerminalLayout, quiet: Bool = false) -> [TerminalText] {
        var lines: [TerminalText] = []
        let nameWidth = min(16, checks.map { Terminal.columns(inert($0.name)) }.max() ?? 0)
        for check in checks where !quiet || check.status == .warning || check.status == .broken {
            let mark: TerminalText
            switch check.status {
            case .ok: mark = TerminalText("ok", style: .green)
            case .info: mark = TerminalText("--", style: .dim)
            case .warning: mark = TerminalText("warn", style: .yellow)
            case .broken: mark = TerminalText("FAIL", style: .boldRed)
            }
            lines += card(mark: mark, markWidth: 4, name: check.name, nameWidth: nameWidth, message: check.message,
                          fix: check.status == .ok ? nil : check.fix, layout: layout)
        }
        let broken = checks.contains { $0.status == .broken }
        let warnings = checks.filter { $0.status == .warning }.count
        if quiet, !broken, warnings == 0 { return lines }
        if !lines.isEmpty { lines.append("") }
        if broken {
            lines += layout.wrap("Something is broken: see the FAIL lines above.", layout.width).map { TerminalText($0, style: .boldRed) }
        } else {
            lines += layout.wrap(warnings > 0 ? "Nothing is broken, but see the \(warnings) warn line\(warnings == 1 ? "" : "s") above."
                                 : "No problems.", layout.width).map { TerminalText($0) }
        }
        return lines
    }

    // MARK: - test

    /// One sink's test result.
    package struct TestResult: Sendable {
        package var sink: String
        package var type: String
        package var milliseconds: Int
        package var delivered: Bool
        package var result: String
        /// What was sent, secrets redacted.
        package var preview: String?

        /// The result in `hookctl test --json`.
        package var json: JSONValue {
            var object = JSONObject()
            object["sink"] = .string(sink)
            object["type"] = .string(type)
            object["delivered"] = .bool(delivered)
            object["result"] = .string(result)
            object["duration_ms"] = .int(milliseconds)
            if let preview { object["request"] = .string(preview) }
            return .object(object)
        }
    }

    package static func test(_ results: [TestResult], layout: TerminalLayout) -> [TerminalText] {
        var lines: [TerminalText] = []
        let nameWidth = results.map { Terminal.columns(inert($0.sink)) }.max() ?? 0
        let typeWidth = results.map { Terminal.columns(inert($0.type)) }.max() ?? 0
        let timingWidth = results.map { "\($0.milliseconds) ms".count }.max() ?? 0
        for result in results {
            let timing = "\(result.milliseconds) ms"
            let mark = TerminalText(result.delivered ? "ok" : "FAIL", style: result.delivered ? .green : .boldRed)
            let name = Terminal.pad(inert(result.sink), nameWidth) + "  " + Terminal.pad(inert(result.type), typeWidth) + "  "
                + Terminal.pad(timing, timingWidth)
            lines += card(mark: mark, markWidth: 4, name: Terminal.trimEnd(name), nameWidth: Terminal.columns(name), message: result.result, fix: nil,
                          layout: layout, narrow: layout.width < 80)
            for line in (result.preview ?? "").split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
                let text = TerminalText.visible(String(line), keepLineBreaks: false)
                lines += layout.wrap(text, layout.width - 4).map { TerminalText("    " + $0, style: .dim) }
            }
        }
        return lines
    }

    // MARK: - setup and uninstall

    /// One line of setup's summary: what (`config`, `Claude Code`), what happened, where.
    package struct SetupRow: Sendable {
        package var label: String
        package var status: String
        package var detail: String
        package var style: TerminalStyle?
    }

    package static func setup(_ rows: [SetupRow], layout: TerminalLayout) -> [TerminalText] {
        let labelWidth = min(14, rows.map { Terminal.columns(inert($0.label)) }.max() ?? 0)
        let statusWidth = rows.map { Terminal.columns($0.status) }.max() ?? 0
        var lines: [TerminalText] = []
        for row in rows {
            let status = TerminalText(Terminal.pad(row.status, statusWidth), style: row.style)
            let label = Terminal.pad(inert(row.label), labelWidth)
            // A list of paths is copied: each path whole, never wrapped; anything else is prose.
            let pieces = row.detail.split(separator: ",").map { inert(Text.trimmed(String($0))) }
            let paths = !pieces.isEmpty && pieces.allSatisfy { $0.hasPrefix("/") || $0.hasPrefix("~") } ? pieces : nil
            if layout.isNarrow {
                lines.append(TerminalText(label + " ") + TerminalText(row.status, style: row.style))
                let body = paths ?? layout.wrap(inert(row.detail), layout.width - 2)
                lines += body.filter { !$0.isEmpty }.map { TerminalText("  " + $0) }
            } else {
                let indent = labelWidth + statusWidth + 4
                var body = layout.wrap(inert(row.detail), layout.width - indent)
                if let paths {
                    let joined = paths.joined(separator: ", ")
                    body = indent + Terminal.columns(joined) <= layout.width ? [joined] : paths
                }
                lines.append(TerminalText(label + "  ") + status + "  " + (body.first ?? ""))
                lines += body.dropFirst().map { TerminalText(String(repeating: " ", count: indent) + $0) }
            }
        }
        return lines.map { $0.trimmingTrailingSpaces() }
    }

    /// A unified diff with added lines green, removed lines red, hunks cyan; made inert line by line.
    package static func diff(_ text: String) -> [TerminalText] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map { raw in
            let line = TerminalText.visible(String(raw), keepLineBreaks: false)
            if line.hasPrefix("+++") || line.hasPrefix("---") { return TerminalText(line, style: .bold) }
            if line.hasPrefix("+") { return TerminalText(line, style: .green) }
            if line.hasPrefix("-") { return TerminalText(line, style: .red) }
            if line.hasPrefix("@@") { return TerminalText(line, style: .cyan) }
            return TerminalText(line)
        }
    }

    // MARK: - outbox

    package static func outbox(pending: [OutboxEntry], dead: [OutboxEntry], superseded: [OutboxEntry] = [], now: Double,
                       layout: TerminalLayout) -> [TerminalText] {
        var lines: [TerminalText] = []
        func entry(_ entry: OutboxEntry, state: TerminalText, detail: String?) {
            let id = entry.event.id
            let kind = " · " + entry.event.kind.rawValue
            // The sink's name gives way (it is in the config); the event id, a thing to copy, never does.
            let room = layout.width - 2 - Terminal.columns(state.plain) - 1 - Terminal.columns(kind)
                - (layout.isNarrow ? 0 : 2 + Terminal.columns(id))
            let sink = layout.fit(inert(entry.sink), max(8, room))
            let head = TerminalText("  ") + state + " " + sink + kind
            if layout.isNarrow || Terminal.columns(head.plain) + 2 + Terminal.columns(id) > layout.width {
                lines.append(head)
                lines.append(TerminalText("    " + inert(id)))
            } else {
                lines.append(head + "  " + inert(id))
            }
            if let detail, !detail.isEmpty {
                lines += layout.wrap(inert(detail), layout.width - 4).map { TerminalText("    " + $0) }
            }
        }
        if !pending.isEmpty {
            lines.append(TerminalText("PENDING (\(pending.count))", style: .bold))
            for item in pending {
                let due = item.nextAttempt <= now ? "due now"
                    : item.nextAttempt > now + Outbox.implausiblyFarAhead ? "due now (scheduled before the clock was set back)"
                    : "next try in \(DurationText.format(item.nextAttempt - now))"
                entry(item, state: TerminalText("waiting", style: .yellow),
                      detail: "attempts \(item.attempts), \(due)" + (item.lastError.map { "; last error: \($0)" } ?? ""))
            }
        }
        if !dead.isEmpty {
            if !pending.isEmpty { lines.append("") }
            lines.append(TerminalText("DEAD (\(dead.count))", style: .boldRed))
            lines += layout.wrap("Not delivered, kept for you to see. Remove them with:", layout.width).map { TerminalText($0) }
            lines.append("  hookctl outbox drop --dead")
            for item in dead { entry(item, state: TerminalText("dead", style: .red), detail: item.deadReason) }
        }
        if !superseded.isEmpty {
            if !lines.isEmpty { lines.append("") }
            lines.append(TerminalText("SUPERSEDED (\(superseded.count))", style: .bold))
            lines += layout.wrap("Not sent: a newer event of the same session was sent instead.", layout.width).map { TerminalText($0) }
            for item in superseded {
                entry(item, state: TerminalText("superseded", style: .dim), detail: item.supersededBy.map { "by \($0)" })
            }
        }
        return lines
    }

    /// `outbox flush`: the summary, then each entry not delivered.
    package static func flush(_ result: FlushResult, layout: TerminalLayout) -> [TerminalText] {
        var summary = "delivered \(result.delivered), still pending \(result.pending), failed \(result.failed)"
        if result.busy > 0 { summary += ", \(result.busy) being sent by another hookctl right now" }
        var lines = layout.wrap(summary, layout.width).map { TerminalText($0) }
        for line in result.lines where !line.delivered {
            let mark = TerminalText(line.pending ? "waiting" : "FAIL", style: line.pending ? .yellow : .boldRed)
            let head = TerminalText("  ") + mark + " " + inert(line.sink)
            if layout.isNarrow {
                lines.append(head)
                lines.append(TerminalText("    " + line.eventID))
            } else {
                lines.append(head + "  " + line.eventID)
            }
            lines += layout.wrap(inert(line.summary), layout.width - 4).map { TerminalText("    " + $0) }
        }
        return lines
    }

    // MARK: - session list

    package static func sessions(_ sessions: [TmuxSession], layout: TerminalLayout) -> [TerminalText] {
        let header = ["ID", "NAME", "CREATED", "WINDOWS", "ATTACHED", "MANAGED"]
        let rows = sessions.map { session in
            [session.id, inert(session.name), String(WallClock.iso8601(Double(session.created)).prefix(19)) + "Z",
             String(session.windows), String(session.attachedClients), session.isManaged ? "yes" : "no"]
        }
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], Terminal.columns(cell)) } }
        // A table wider than the terminal (a long session name) is shown as cards, whose names wrap.
        if layout.isNarrow || (layout.cuts && widths.reduce(0, +) + 2 * (widths.count - 1) > layout.width) {
            var lines: [TerminalText] = []
            for session in sessions {
                let name = inert(session.name)
                let state = session.attachedClients > 0 ? "attached" : "detached"
                let nameLines = layout.wrap(session.id + " " + name, layout.width)
                lines += nameLines.enumerated().map { index, line in
                    index == 0 ? TerminalText(session.id) + TerminalText(String(line.dropFirst(session.id.count)), style: session.isManaged ? .bold : nil)
                        : TerminalText(line, style: session.isManaged ? .bold : nil)
                }
                let created = String(WallClock.iso8601(Double(session.created)).prefix(16)).replacing("T", with: " ")
                let details = "\(state), \(session.windows) window\(session.windows == 1 ? "" : "s"), created \(created)"
                    + (session.isManaged ? ", managed" : "")
                lines += layout.wrap(details, layout.width - 2).map { TerminalText("  " + $0) }
            }
            return lines
        }
        func render(_ cells: [String], style: TerminalStyle?) -> TerminalText {
            TerminalText(cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : Terminal.pad(cell, widths[index])
            }.joined(separator: "  "), style: style)
        }
        return [render(header, style: .bold)] + rows.map { render($0, style: nil) }
    }
}

