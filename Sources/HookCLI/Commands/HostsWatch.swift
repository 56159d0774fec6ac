import Synchronization


/// `status --hosts --watch`: the board across hosts, full screen. One follower thread per host asks
/// its `hookctl status --json` over the host's warm control master (one connection per host) every
/// `interval`; the screen is redrawn within `interval` of a remote change, every second for the
/// ages, on a resize. A host that stops answering shows why and is asked again with a backoff
/// (1 s doubling to 30 s). q, Ctrl-C, Ctrl-D, a hang-up or SIGTERM restore the screen.
package struct HostsWatch {
    package var context: CommandContext
    package var options: StatusCommand.Options
    package var interval = 0.4
    package static let longestBackoff = 30.0

    /// The latest board of each host, shared by the follower threads and the drawing loop.
    package final class Boards: Sendable {
        package let state: Mutex<(boards: [HostBoard], generation: Int, stop: Bool)>
        package init(_ boards: [HostBoard]) { state = Mutex((boards, 0, false)) }
        package func set(_ index: Int, _ board: HostBoard) {
            state.withLock { state in
                let old = state.boards[index]
                state.boards[index] = board
                if old.state != board.state || old.lastSeq != board.lastSeq || old.reason != board.reason
                    || old.entries.map(\.lastSeq) != board.entries.map(\.lastSeq) || old.entries.map(\.state) != board.entries.map(\.state) {
                    state.generation += 1
                }
            }
        }
        package var stopped: Bool { state.withLock { $0.stop } }
    }

    package func run() throws -> ExitCode {
        guard let output = context.outputDescriptor, isatty(output) != 0 else {
            throw UsageError(message: "--watch needs a terminal on standard output; use 'status --hosts --json' in a pipe",
                             command: StatusCommand.spec.path)
        }
        let (local, hosts) = try HostsSupport.select(try HostsSupport.hosts(context: context), names: options.hostNames)
        let runner = try HostsSupport.runner(context: context)
        let terminal = WatchScreen(input: context.standardInput, output: output)
        let (input, keyboard, screen) = (terminal.input, terminal.keyboard, terminal.screen)
        let boards = Boards(hosts.map { HostBoard(name: $0.name, state: .unreachable, reason: "connecting…") })
        defer {
            boards.state.withLock { $0.stop = true }
            terminal.restore()
        }
        for index in hosts.indices { follow(hosts[index], index: index, runner: runner, into: boards) }

        var lastGeneration = -1
        var lastDraw = ContinuousClock.now - .seconds(2)
        var lastCache = ContinuousClock.now
        let keys = FileDescriptor(rawValue: input)
        var quit = false
        while !quit {
            let (current, generation) = boards.state.withLock { ($0.boards, $0.generation) }
            if generation != lastGeneration || ContinuousClock.now - lastDraw >= .seconds(1) || terminal.lastSignal == SIGWINCH {
                if terminal.lastSignal == SIGWINCH { terminal.lastSignal = 0 }
                screen.write(frame(localBoard: local, current))
                lastGeneration = generation
                lastDraw = .now
            }
            if ContinuousClock.now - lastCache >= .seconds(1) {
                HostsBoard.writeCache(current, paths: context.paths(), now: WallClock.nowEpoch())
                lastCache = .now
            }
            if terminal.lastSignal != 0, terminal.lastSignal != SIGWINCH { break }
            let ready = keyboard ? ((try? FileDescriptor.poll([(keys, Int16(POLLIN))], timeout: 0.1)[0]) ?? 0) != 0 : false
            if !keyboard { sleepSeconds(0.1) }
            if ready {
                var bytes = [UInt8](repeating: 0, count: 64)
                let count = (try? keys.read(into: &bytes)) ?? 0
                if count <= 0 || bytes[0..<count].contains(where: { $0 == UInt8(ascii: "q") || $0 == 3 || $0 == 4 }) { quit = true }
            }
        }
        return .ok
    }

    /// A thread that keeps `host`'s board fresh until the watch stops.
    package func follow(_ host: SSHRunner.Host, index: Int, runner: SSHRunner, into boards: Boards) {
        let interval = interval
        Parallel.detach {
            var backoff = 1.0
            while !boards.stopped {
                let board = HostsBoard.ask([host], runner: runner, timeout: Double(runner.connectTimeout) + 5)[0]
                if board.state == .ok {
                    backoff = 1
                    boards.set(index, board)
                    sleepSeconds(interval)
                } else {
                    var shown = board
                    shown.reason = (board.reason ?? "no answer") + "; retrying in \(formatSeconds(backoff))"
                    boards.set(index, shown)
                    let until = ContinuousClock.now + .seconds(clampingSeconds: backoff)
                    while !boards.stopped, ContinuousClock.now < until { sleepSeconds(0.1) }
                    backoff = min(Self.longestBackoff, backoff * 2)
                }
            }
        }
    }

    /// One screen: a title, this host's board and the others', each host without a board on its own line.
    package func frame(localBoard local: Bool, _ remote: [HostBoard]) -> String {
        let layout = context.layout(width: options.width)
        var boards: [HostBoard] = []
        if local {
            let log = EventLog(paths: context.paths())
            if let (board, _, _) = try? StatusCommand.snapshot(log, filter: .none, staleAfter: options.staleAfter, context: context,
                                                               checkPanes: false, warn: { _ in }) {
                boards.append(HostBoard(name: HostRules.localName, state: .ok, entries: board.ordered, lastSeq: board.lastSeq))
            } else {
                boards.append(HostBoard(name: HostRules.localName, state: .failed, reason: "cannot read the board"))
            }
        }
        let now = WallClock.nowEpoch()
        boards += remote
        for index in boards.indices {
            boards[index].entries = boards[index].entries.filter { options.filter.matches($0, now: now, staleAfter: options.staleAfter) }
        }
        let waiting = boards.reduce(0) { $0 + $1.entries.filter { $0.state == .needsInput }.count }
        let answered = boards.filter { $0.state == .ok }.count
        let title = "hookctl status --hosts · \(BoardView.localTime(now).suffix(8)) · \(answered) of \(boards.count) hosts"
            + (waiting > 0 ? " · \(waiting) input" : "")
        var lines = [TerminalText(Terminal.fit(title, layout.width), style: .bold), TerminalText("")]
        lines += StatusCommand.hostsLines(boards, now: now, staleAfter: options.staleAfter, layout: layout)
        lines += [TerminalText(""), TerminalText("q quits", style: .dim)]
        if let rows = context.outputDescriptor.flatMap(Terminal.rows), lines.count > rows {
            lines = Array(lines.prefix(max(1, rows - 1))) + [TerminalText("…", style: .dim)]
        }
        let color = context.usesColor
        return "\u{1B}[H" + lines.map { $0.rendered(color: color) + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J"
    }
}
