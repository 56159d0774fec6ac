/// The signal that asked `status --watch` to stop or redraw (0: none); set by a signal handler.
nonisolated(unsafe) private var watchSignal: Int32 = 0

/// `status --watch`: the board full screen on the alternate screen, redrawn when events arrive (the
/// event follower wakes it), every second for the ages, and on a resize; q, Ctrl-C, Ctrl-D, a
/// hang-up or SIGTERM restore the screen and the terminal modes.
struct StatusWatch {
    var context: CommandContext
    var paths: Paths
    var filter: StatusCommand.Filter
    var staleAfter: Double
    var width: Int?

    func run() throws -> ExitCode {
        guard let output = context.outputDescriptor, isatty(output) != 0 else {
            throw UsageError(message: "--watch needs a terminal on standard output; use 'hookctl events --follow' in a pipe",
                             command: StatusCommand.spec.path)
        }
        let input = context.standardInput
        let keyboard = isatty(input) != 0
        var saved = termios()
        if keyboard {
            tcgetattr(input, &saved)
            var raw = saved
            // Keys arrive one by one without echo; Ctrl-C arrives as a byte so the screen is restored first.
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
            tcsetattr(input, TCSANOW, &raw)
        }
        watchSignal = 0
        let handler: @convention(c) (Int32) -> Void = { watchSignal = $0 }
        let signals = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]
        var previous: [sighandler_t?] = []
        for number in signals { previous.append(signal(number, handler)) }
        let screen = FileDescriptorStream(fd: output)
        screen.write("\u{1B}[?1049h\u{1B}[?25l")
        defer {
            screen.write("\u{1B}[?25h\u{1B}[?1049l")
            if keyboard { tcsetattr(input, TCSANOW, &saved) }
            for (number, old) in zip(signals, previous) { signal(number, old) }
        }

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
            let frame = (try? render(log, checkPanes: checkPanes)) ?? "hookctl: cannot read the board\n"
            screen.write("\u{1B}[H" + frame.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                .map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J")
            lastDraw = .now
            dirty = false
        }
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
                    if bytes[0..<count].contains(where: { [UInt8(ascii: "q"), UInt8(ascii: "Q"), 3, 4].contains($0) }) { quit = true }
                    if bytes[0..<count].contains(UInt8(ascii: "r")) || bytes[0..<count].contains(12) { dirty = true }
                }
            }
            switch watchSignal {
            case 0: break
            case SIGWINCH: dirty = true; watchSignal = 0
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
        return .ok
    }

    /// One frame: a title line and the board, fitted to the terminal's width and height.
    func render(_ log: EventLog, checkPanes: Bool) throws -> String {
        let layout = context.layout(width: width)
        let color = context.usesColor
        // Warnings would scribble over the board: it is redrawn from what can be read.
        let (board, entries, now) = try StatusCommand.snapshot(log, filter: filter, staleAfter: staleAfter, context: context,
                                                               checkPanes: checkPanes, warn: { _ in })
        var title = "hookctl status · \(BoardView.localTime(now).suffix(8))"
        let counts = [(AgentState.needsInput, "input"), (.failed, "failed"), (.working, "working")].compactMap { state, word in
            let count = entries.filter { $0.state == state }.count
            return count > 0 ? "\(count) \(word)" : nil
        }
        if !counts.isEmpty { title += " · " + counts.joined(separator: ", ") }
        let hint = " · q quits"
        if Terminal.columns(title + hint) <= layout.width { title += hint }
        var lines = [TerminalText(Terminal.fit(title, layout.width), style: .bold), TerminalText("")]
        if entries.isEmpty {
            lines.append(TerminalText(board.entries.isEmpty ? "No agent sessions recorded yet." : "No agent sessions match."))
        } else {
            lines += BoardView.statusLines(entries, now: now, staleAfter: staleAfter, layout: layout)
        }
        if let rows = context.outputDescriptor.flatMap(Terminal.rows), lines.count > rows {
            lines = Array(lines.prefix(rows - 1)) + [TerminalText("… \(lines.count - rows + 1) more lines", style: .dim)]
        }
        return lines.map { $0.rendered(color: color) + "\n" }.joined()
    }
}
