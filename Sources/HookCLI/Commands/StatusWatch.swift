
/// `status --watch`: the board full screen on the alternate screen, redrawn when events arrive (the
/// event follower wakes it), every second for the ages, on a resize and on each key (`WatchControls`:
/// select a row, peek, reply, jump); q, Ctrl-C, Ctrl-D, a hang-up or SIGTERM restore the screen and
/// the terminal modes.
package struct StatusWatch {
    package var context: CommandContext
    package var paths: Paths
    package var filter: StatusCommand.Filter
    package var staleAfter: Double
    package var width: Int?

    package func run() throws -> ExitCode {
        guard let output = context.outputDescriptor, isatty(output) != 0 else {
            throw UsageError(message: "--watch needs a terminal on standard output; use 'hookctl events --follow' in a pipe",
                             command: StatusCommand.spec.path)
        }
        let terminal = WatchScreen(input: context.standardInput, output: output)
        let (input, keyboard, screen) = (terminal.input, terminal.keyboard, terminal.screen)
        defer { terminal.restore() }

        let log = EventLog(paths: paths)
        try FileSystem.makeDirectories(log.files.directory)
        var quit = false
        var dirty = true
        var lastDraw = ContinuousClock.now
        var lastPaneCheck = ContinuousClock.now
        func draw() {
            // Asking tmux whether panes still exist costs a process: on new events and every 5 s,
            // not on every tick of the ages.
            let checkPanes = dirty || ContinuousClock.now - lastPaneCheck >= .seconds(5)
            if checkPanes { lastPaneCheck = .now }
            let frame = (try? render(log, checkPanes: checkPanes, controls: &controls)) ?? "hookctl: cannot read the board\n"
            screen.write("\u{1B}[H" + frame.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                .map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J")
            lastDraw = .now
            dirty = false
        }
        var controls = WatchControls(context: context)
        var attach: [String]?
        var follower = EventFollower(files: log.files, after: EventsCommand.newestSeq(log.files), hangupDescriptor: output)
        follower.pollInterval = 1
        follower.wakeDescriptor = keyboard ? input : nil
        follower.shouldStop = {
            if keyboard {
                var bytes = [UInt8](repeating: 0, count: 64)
                let keys = FileDescriptor(rawValue: input)
                // Input, a hang-up or an error on the terminal is read (end of input or an error quits);
                // a poll that fails leaves the keys for the next tick.
                while (try? FileDescriptor.poll([(keys, Int16(POLLIN))], timeout: 0)[0]).map({ $0 != 0 }) ?? false {
                    let count = (try? keys.read(into: &bytes)) ?? 0
                    if count <= 0 { quit = true; break }
                    // Keys typed quickly (or sent together) arrive in one read: each is handled in turn.
                    for key in WatchControls.keys(Array(bytes[0..<count])) where !quit {
                        switch controls.press(key) {
                        case .quit: quit = true
                        case .redraw: dirty = true
                        case .jump(let command):
                            // Outside the agent's tmux server: leave the board and attach there.
                            attach = command
                            quit = true
                        case .none: break
                        }
                    }
                }
            }
            switch terminal.lastSignal {
            case 0: break
            case SIGWINCH: dirty = true; terminal.lastSignal = 0
            default: quit = true
            }
            if quit { return true }
            if dirty || ContinuousClock.now - lastDraw >= .seconds(1) { draw() }
            return false
        }
        draw()
        try follower.run(warn: { _ in }) { _, _ in
            dirty = true
            return true
        }
        if let attach, let executable = attach.first {
            // The screen and terminal modes are restored first (the defers run before exec would not).
            terminal.leave()
            var environment = context.environment
            environment["TMUX"] = nil
            environment["TMUX_PANE"] = nil
            throw Subprocess.replaceProcess(executable: executable, arguments: Array(attach.dropFirst()), environment: environment)
        }
        return .ok
    }

    /// One frame: a title line, the board with the selected row marked (or what `p` peeked, or the
    /// reply being typed), and a footer with the keys and the last action's result, fitted to the
    /// terminal's width and height.
    package func render(_ log: EventLog, checkPanes: Bool, controls: inout WatchControls) throws -> String {
        let layout = context.layout(width: width)
        let color = context.usesColor
        // Warnings would scribble over the board: it is redrawn from what can be read.
        let (board, entries, now) = try StatusCommand.snapshot(log, filter: filter, staleAfter: staleAfter, context: context,
                                                               checkPanes: checkPanes, warn: { _ in })
        controls.entries = entries
        var title = "hookctl status · \(BoardView.localTime(now).suffix(8))"
        let counts = [(AgentState.needsInput, "input"), (.failed, "failed"), (.working, "working")].compactMap { state, word in
            let count = entries.filter { $0.state == state }.count
            return count > 0 ? "\(count) \(word)" : nil
        }
        if !counts.isEmpty { title += " · " + counts.joined(separator: ", ") }
        var lines = [TerminalText(Terminal.fit(title, layout.width), style: .bold), TerminalText("")]
        if let peeked = controls.peeked {
            lines += peeked.flatMap { layout.wrap($0, layout.width) }.map { TerminalText($0) }
        } else if entries.isEmpty {
            lines.append(TerminalText(board.entries.isEmpty ? "No agent sessions recorded yet." : "No agent sessions match."))
        } else {
            lines += BoardView.statusLines(entries, now: now, staleAfter: staleAfter, layout: layout, selected: controls.selectedIndex)
        }
        let footer = controls.footer(width: layout.width)
        if let rows = context.outputDescriptor.flatMap(Terminal.rows), lines.count + footer.count > rows {
            // The peeked screen keeps its bottom (where a question is); the board its top.
            let room = max(1, rows - footer.count - 1)
            if controls.peeked != nil {
                lines = Array(lines.prefix(2)) + Array(lines.dropFirst(2).suffix(max(0, room - 2)))
            } else {
                lines = Array(lines.prefix(room)) + [TerminalText("… \(lines.count - room) more lines", style: .dim)]
            }
        }
        return (lines + footer).map { $0.rendered(color: color) + "\n" }.joined()
    }
}

/// The keys of `status --watch`: ↑/↓ (or k/j) select an agent; p or Enter shows its pane (`peek`), any key
/// returns; r starts a reply (a digit alone picks that option of its question, other text is typed
/// with Enter; Enter sends, Esc cancels); g jumps to it (`jump`: inside its tmux server this client
/// switches there and the board keeps running; elsewhere the board ends and attaches); q quits. Each
/// action runs the same command as typed on a command line, with the same target checks.
package struct WatchControls {
    package var context: CommandContext
    /// The rows on screen now, in order.
    package var entries: [BoardEntry] = []
    /// The selected agent, by key (so it stays selected when rows move).
    package var selectedKey: String?
    /// What `p` captured, shown until the next key.
    package var peeked: [String]?
    /// The reply being typed, while in reply mode.
    package var replyText: String?
    /// The last action's result, one line.
    package var status: String?

    package init(context: CommandContext) { self.context = context }

    package enum Action: Equatable { case none, redraw, quit, jump([String]) }

    /// One read from the keyboard split into keys: an escape sequence (`ESC [ A`), one UTF-8
    /// character, or one byte.
    package static func keys(_ bytes: [UInt8]) -> [[UInt8]] {
        var keys: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            var length = 1
            let byte = bytes[index]
            if byte == 0x1B, index + 2 < bytes.count, bytes[index + 1] == 0x5B || bytes[index + 1] == 0x4F {
                length = 3
            } else if byte >= 0xF0 { length = 4 } else if byte >= 0xE0 { length = 3 } else if byte >= 0xC0 { length = 2 }
            let end = min(bytes.count, index + length)
            keys.append(Array(bytes[index..<end]))
            index = end
        }
        return keys
    }

    package var selectedIndex: Int? {
        guard !entries.isEmpty else { return nil }
        return selectedKey.flatMap { key in entries.firstIndex { $0.key == key } } ?? 0
    }

    package var selected: BoardEntry? { selectedIndex.map { entries[$0] } }

    /// Handles the bytes of one read from the keyboard.
    package mutating func press(_ bytes: [UInt8]) -> Action {
        if replyText != nil { return typeReply(bytes) }
        if peeked != nil {
            peeked = nil
            status = nil
            return bytes.contains(where: { [UInt8(ascii: "q"), 3, 4].contains($0) }) ? .quit : .redraw
        }
        switch bytes {
        case [0x1B, 0x5B, 0x41], [0x1B, 0x4F, 0x41], [UInt8(ascii: "k")]: move(-1)
        case [0x1B, 0x5B, 0x42], [0x1B, 0x4F, 0x42], [UInt8(ascii: "j")]: move(1)
        case [UInt8(ascii: "p")], [0x0D], [0x0A]: peek()
        case [UInt8(ascii: "r")]:
            guard selected != nil else { return .none }
            replyText = ""
            status = nil
        case [UInt8(ascii: "g")]: return jump()
        case [12]: return .redraw
        default:
            if bytes.contains(where: { [UInt8(ascii: "q"), UInt8(ascii: "Q"), 3, 4].contains($0) }) { return .quit }
            return .none
        }
        return .redraw
    }

    package mutating func move(_ step: Int) {
        guard let index = selectedIndex else { return }
        selectedKey = entries[min(max(0, index + step), entries.count - 1)].key
        status = nil
    }

    /// Runs a hookctl command in this process, its output collected: (exit status, stdout, stderr).
    package func run(_ arguments: [String]) -> (Int32, String, String) {
        var sub = context
        let out = BufferStream(), err = BufferStream()
        sub.standardOutput = out
        sub.standardError = err
        sub.standardInput = -1
        sub.colorChoice = .never
        let global = context.configOverride.map { ["--config", $0] } ?? []
        let status = CommandLineTool.run(global + arguments, context: sub)
        return (status, out.text, err.text)
    }

    /// The first line of a command's error, without the `hookctl: error: ` prefix.
    package static func firstLine(_ text: String) -> String {
        var line = String(text.split(separator: "\n").first ?? "")
        for prefix in ["hookctl: error: ", "hookctl: warning: "] where line.hasPrefix(prefix) { line = String(line.dropFirst(prefix.count)) }
        return line
    }

    package mutating func peek() {
        guard let entry = selected else { return }
        let rows = context.outputDescriptor.flatMap(Terminal.rows) ?? 24
        let (code, out, err) = run(["peek", entry.key, "--lines", "0"])
        if code == 0 {
            peeked = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).suffix(max(3, rows - 3))
            status = "any key: back to the board"
        } else {
            status = Self.firstLine(err)
        }
    }

    package mutating func typeReply(_ bytes: [UInt8]) -> Action {
        guard let entry = selected, var text = replyText else { replyText = nil; return .redraw }
        if bytes == [0x1B] || bytes.contains(3) {
            replyText = nil
            status = "reply cancelled"
            return .redraw
        }
        if bytes.contains(0x0D) || bytes.contains(0x0A) {
            replyText = nil
            let typed = Text.trimmed(text)
            guard !typed.isEmpty else { status = "nothing typed: reply cancelled"; return .redraw }
            // A number alone picks that option of the question the agent waits on; anything else is text.
            let isChoice = Int(typed) != nil && entry.question?.options.isEmpty == false
            let (code, out, err) = run(["reply", entry.key] + (isChoice ? ["--choice", typed] : [typed]))
            status = code == 0 ? (Self.firstLine(out).isEmpty ? "sent" : Self.firstLine(out)) : Self.firstLine(err)
            return .redraw
        }
        // A read holds whole characters as typed (UTF-8): backspace removes one, other controls are ignored.
        for character in String(decoding: bytes, as: UTF8.self) {
            if character == "\u{7F}" || character == "\u{08}" {
                if !text.isEmpty { text.removeLast() }
            } else if let scalar = character.unicodeScalars.first, scalar.value >= 0x20, !TerminalText.isInvisibleControl(scalar.value) {
                text.append(character)
            }
        }
        replyText = String(text.prefix(4000))
        return .redraw
    }

    package mutating func jump() -> Action {
        guard let entry = selected else { return .none }
        let (code, out, err) = run(["jump", entry.key, "--json"])
        guard code == 0, let document = try? JSON.parse(out) else {
            status = Self.firstLine(err)
            return .redraw
        }
        if document["switched"]?.boolValue == true {
            status = "switched to \(BoardView.inert(BoardView.place(entry)))"
            return .redraw
        }
        let command = document["command"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return command.isEmpty ? .redraw : .jump(command)
    }

    /// The bottom lines: the reply being typed, or the last result, and the keys.
    package func footer(width: Int) -> [TerminalText] {
        var lines: [TerminalText] = []
        if let replyText, let entry = selected {
            let prompt = "reply to \(BoardView.inert(entry.agent)) (\(BoardView.inert(BoardView.place(entry)))): "
            let hint = entry.question?.options.isEmpty == false ? "a number picks that option; " : ""
            lines += Terminal.wrap(hint + "Enter sends, Esc cancels", columns: width).map { TerminalText($0, style: .dim) }
            // The end of what is typed stays in view.
            let shown = BoardView.inert(replyText)
            let room = max(1, width - Terminal.columns(prompt) - 1)
            var tail = shown
            while Terminal.columns(tail) > room { tail.removeFirst() }
            lines.append(TerminalText(Terminal.fit(prompt, width - 2), style: .bold) + tail + "_")
            return lines
        }
        if let status { lines += Terminal.wrap(BoardView.inert(status), columns: width).prefix(2).map { TerminalText($0, style: .yellow) } }
        let keys = width < TerminalLayout.narrowWidth ? "↑↓ p peek · r reply · g jump · q quit"
            : "↑↓ select · p peek · r reply · g jump · q quit"
        lines.append(TerminalText(Terminal.fit(keys, width), style: .dim))
        return lines
    }
}
