/// Finds the one board agent a `peek` / `reply` / `jump` target names, in this order: its board key
/// (`claude:<session id>`), its agent session id, a tmux target where exactly one live agent runs
/// (`name`, `=name`, `$3`, `name:1`, `name:build` by window index or name, `%7`; names compared exactly,
/// never by tmux's prefix match), the name of its project when exactly one live agent works there, a
/// unique beginning (4 characters or more) of a key or session id, or `--next`, the agent waiting
/// longest for input. Several matches or none list the candidates.
package enum AgentTarget {
    package static func resolve(_ target: String?, next: Bool, board: BoardState) throws -> BoardEntry {
        if next {
            let waiting = board.entries.filter { $0.state == .needsInput }
            guard let oldest = waiting.min(by: { ($0.since, $0.key) < ($1.since, $1.key) }) else {
                throw AnswerError.nothingWaiting(candidates: candidates(board.ordered))
            }
            return oldest
        }
        guard let target, !target.isEmpty else { throw UsageError(message: "name an agent (TARGET) or use --next") }
        if let entry = board.entries.first(where: { $0.key == target }) { return entry }
        let live = board.entries.filter { $0.state != .ended }
        let bySession = board.entries.filter { $0.sessionID == target }
        if bySession.count == 1 { return bySession[0] }
        if bySession.count > 1 { throw AnswerError.ambiguous(target: target, candidates: list(bySession)) }
        let inTmux = live.filter { entry in entry.tmux.map { located($0, by: target) } ?? false }
        if inTmux.count == 1 { return inTmux[0] }
        if inTmux.count > 1 { throw AnswerError.ambiguous(target: target, candidates: list(inTmux)) }
        let inProject = live.filter { $0.projectName == target }
        if inProject.count == 1 { return inProject[0] }
        if inProject.count > 1 { throw AnswerError.ambiguous(target: target, candidates: list(inProject)) }
        // A unique beginning of a key or session id (at least 4 characters) is enough.
        if target.count >= 4 {
            let prefixed = board.entries.filter { $0.key.hasPrefix(target) || ($0.sessionID?.hasPrefix(target) ?? false) }
            if prefixed.count == 1 { return prefixed[0] }
            if prefixed.count > 1 { throw AnswerError.ambiguous(target: target, candidates: list(prefixed)) }
        }
        throw AnswerError.noMatch(target: target, candidates: candidates(board.ordered))
    }

    /// Resolves against the stored board, decoding only the sessions that can match: those waiting
    /// for `--next`, else those whose stored text contains the target (a key, a session id, a tmux
    /// name or pane id appear there verbatim). The full board is read only to list candidates.
    package static func resolve(_ target: String?, next: Bool, log: EventLog, warn: (String) -> Void) throws -> BoardEntry {
        try resolveReading(target, next: next, log: log, warn: warn).entry
    }

    /// As `resolve(_:next:log:warn:)`, and `board.state` as it was read (one read), when it was up to
    /// date: a reply records its event after it without reading the board again.
    package static func resolveReading(_ target: String?, next: Bool, log: EventLog,
                               warn: (String) -> Void) throws -> (entry: BoardEntry, board: EventLog.BoardRead?) {
        var partial = BoardState()
        let read = log.currentBoard()
        if let file = read?.file {
            if next {
                let waiting = Array(AgentState.needsInput.rawValue.utf8)
                partial.entries = try EventLog.sessions(of: file.lines, where: { _, state, _ in state.elementsEqual(waiting) })
            } else if let target, !target.isEmpty,
                      target.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" }) {
                let key = Array(JSON.quote(target).utf8)
                partial.entries = try EventLog.sessions(of: file.lines.filter { BoardFile.hasKey($0, key) }, where: { _, _, _ in true })
                if partial.entries.isEmpty {
                    // A session id, tmux name or pane id is in the session's stored text verbatim.
                    var text = Substring(target)
                    if text.hasPrefix("=") { text = text.dropFirst() }
                    if !text.hasPrefix("%"), let colon = text.firstIndex(of: ":") { text = text[..<colon] }
                    let needle = Array(text.utf8)
                    if !needle.isEmpty {
                        partial.entries = try EventLog.sessions(of: file.lines, where: { _, _, json in contains(json, needle) })
                    }
                }
            }
        }
        if !partial.entries.isEmpty, let found = try? resolve(target, next: next, board: partial) {
            var read = read
            read?.decoded = found
            return (found, read)
        }
        return (try resolve(target, next: next, board: try log.board(warn: warn)), nil)
    }

    package static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, needle.count <= haystack.count else { return false }
        var index = haystack.startIndex
        let last = haystack.endIndex - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }

    /// Whether tmux target `target` names the pane, window or session at `location` (exactly: no prefixes).
    package static func located(_ location: TmuxLocation, by target: String) -> Bool {
        var text = Substring(target)
        if text.hasPrefix("=") { text = text.dropFirst() }
        if text.hasPrefix("%") { return location.pane == String(text) }
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let session = String(parts[0])
        guard location.session == session || location.sessionID == session else { return false }
        guard parts.count == 2 else { return true }
        let window = String(parts[1])
        if window.isEmpty { return true }
        return location.window == window || (location.windowName.map { !$0.isEmpty && $0 == window } ?? false)
    }

    /// What a shell may complete as a target: each live agent's key, its `session:window` when that names
    /// it alone, and each project name that names one agent alone.
    package static func completions(_ board: BoardState) -> [String] {
        let live = board.ordered.filter { $0.state != .ended }
        var words: [String] = []
        for entry in live {
            words.append(entry.key)
            let place = entry.tmux.map(BoardView.placeName) ?? ""
            if entry.tmux != nil, (try? resolve(place, next: false, board: board))?.key == entry.key { words.append(place) }
            if let project = entry.projectName, live.filter({ $0.projectName == project }).count == 1 { words.append(project) }
        }
        return words
    }

    package static func candidates(_ entries: [BoardEntry]) -> String {
        let live = entries.filter { $0.state != .ended }
        return live.isEmpty ? "the board has no live agents ('hookctl status')" : "agents: " + list(live)
    }

    /// `claude:abc (api, sshido-9B95:build, needs_input); …`, at most ten.
    package static func list(_ entries: [BoardEntry]) -> String {
        var items = entries.prefix(10).map { entry in
            let project = entry.projectName.map { AnswerText.forTerminal($0) + ", " } ?? ""
            return "\(AnswerText.forTerminal(entry.key)) (\(project)\(AnswerText.forTerminal(BoardView.place(entry))), \(entry.state.rawValue))"
        }
        if entries.count > 10 { items.append("and \(entries.count - 10) more") }
        return items.joined(separator: "; ")
    }
}
