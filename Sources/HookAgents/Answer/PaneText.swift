/// What a pane shows, as text: capture output cleaned for people and programs, and the numbered
/// menu a dialog puts on it (read the way herdr-remote PR #67 does: the last complete `1..N` run).
package enum PaneText {
    /// Capture output (`capture-pane -p -J`) as lines: escape sequences and control characters
    /// removed, no-break spaces made plain, trailing spaces and trailing blank lines trimmed.
    package static func lines(_ capture: String) -> [String] {
        var lines = capture.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var cleaned = stripControls(Substring(line))
            // Claude Code draws no-break spaces around its glyphs (`⎿\u{A0}Interrupted\u{A0}·\u{A0}What…`).
            if cleaned.contains("\u{A0}") { cleaned = cleaned.replacing("\u{A0}", with: " ") }
            while cleaned.last == " " { cleaned.removeLast() }
            return cleaned
        }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        return lines
    }

    /// One line of pane text through `OutgoingText.clean` (escape sequences, C0/C1 controls but tab,
    /// bidi overrides and isolates), newlines dropped too. Without `-e` tmux writes no escapes; this
    /// holds whatever a future tmux or a hostile program adds.
    package static func stripControls(_ line: Substring) -> String {
        let cleaned = OutgoingText.clean(String(line))
        return cleaned.contains("\n") ? cleaned.filter { $0 != "\n" } : cleaned
    }

    /// One row of a numbered menu.
    package struct MenuItem: Sendable, Equatable {
        package var n: Int
        package var label: String
        /// The row carries the dialog's cursor (`❯`, `›`, `●`…).
        package var focused: Bool
    }

    package static let cursorGlyphs: Set<Character> = ["❯", "›", ">", "▶", "►", "●", "◉", "→", "➜", "▸"]
    package static let checkboxes = ["[ ]", "[x]", "[X]", "[✓]", "[✔]", "☐", "☑", "☒", "◯", "○"]

    /// `❯ 1. Yes` → (1, "Yes", focused). Nil for anything else.
    package static func menuRow(_ line: String) -> MenuItem? {
        var rest = Substring(line).drop { $0 == " " || $0 == "│" || $0 == "┃" || $0 == "|" }
        var focused = false
        if let first = rest.first, cursorGlyphs.contains(first) {
            focused = true
            rest = rest.dropFirst().drop { $0 == " " }
        }
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard (1...2).contains(digits.count), let n = Int(digits), n > 0 else { return nil }
        rest = rest.dropFirst(digits.count)
        guard let mark = rest.first, mark == "." || mark == ")" else { return nil }
        rest = rest.dropFirst()
        guard rest.first == " " else { return nil }
        var label = String(rest.drop { $0 == " " })
        for box in checkboxes where label.hasPrefix(box) { label = String(label.dropFirst(box.count).drop { $0 == " " }) }
        while let last = label.last, last == " " || last == "│" || last == "┃" || last == "|" { label.removeLast() }
        guard !label.isEmpty else { return nil }
        return MenuItem(n: n, label: label, focused: focused)
    }

    /// The menu on screen: the last run numbered 1, 2, … N (N ≥ 2, other lines such as descriptions
    /// in between), provided it shows a cursor on one of its rows or its labels are the recorded
    /// question's. A numbered list in the agent's prose has neither. Nil when no menu is showing.
    package static func menu(_ lines: [String], expected: [String] = []) -> [MenuItem]? {
        var runs: [[MenuItem]] = []
        var current: [MenuItem] = []
        for line in lines {
            guard let item = menuRow(line) else { continue }
            if item.n == 1 {
                if current.count >= 2 { runs.append(current) }
                current = [item]
            } else if item.n == (current.last?.n ?? -1) + 1 {
                current.append(item)
            } else {
                if current.count >= 2 { runs.append(current) }
                current = []
            }
        }
        if current.count >= 2 { runs.append(current) }
        for run in runs.reversed() {
            if run.contains(where: \.focused) { return run }
            if !expected.isEmpty, expected.allSatisfy({ label in run.contains { matches($0.label, label) == .exact } }) { return run }
        }
        return nil
    }

    /// The row a dialog's cursor is on: numbered (`❯ 2. [x] SQLite`) or not (`❯ Submit`, Gemini's `● Done`).
    package struct Focus: Sendable, Equatable {
        /// Which captured line it is on.
        package var line: Int
        package var n: Int?
        package var label: String
    }

    /// The focused row: the last line that starts with a cursor glyph and has a label after it. Read
    /// from below `from` (the menu's first row) so text above a dialog is never taken for it.
    package static func focused(_ lines: [String], from start: Int = 0) -> Focus? {
        guard start < lines.count else { return nil }
        for index in stride(from: lines.count - 1, through: max(0, start), by: -1) {
            if let row = menuRow(lines[index]) {
                if row.focused { return Focus(line: index, n: row.n, label: row.label) }
                continue
            }
            var rest = Substring(lines[index]).drop { $0 == " " || $0 == "│" || $0 == "┃" || $0 == "|" }
            guard let first = rest.first, cursorGlyphs.contains(first) else { continue }
            rest = rest.dropFirst().drop { $0 == " " }
            var label = String(rest)
            for box in checkboxes where label.hasPrefix(box) { label = String(label.dropFirst(box.count).drop { $0 == " " }) }
            while let last = label.last, last == " " || last == "│" || last == "┃" || last == "|" { label.removeLast() }
            if !label.isEmpty { return Focus(line: index, n: nil, label: label) }
        }
        return nil
    }

    /// The line on which the menu's row `n` (its first by default) stands, counted from the bottom.
    package static func line(of n: Int, in lines: [String]) -> Int? {
        lines.indices.last { menuRow(lines[$0])?.n == n }
    }

    package enum Match: Equatable { case exact, prefix, none }

    /// Case- and space-insensitive: `exact`, or `prefix` when the row's label starts with `wanted`
    /// (`Yes, and don't ask again for: npm test:*` for `Yes, and don't ask again`), or a trailing
    /// shortcut hint such as ` (y)` / ` (esc)` aside.
    package static func matches(_ label: String, _ wanted: String) -> Match {
        func normal(_ text: String) -> String { Text.singleLine(text).lowercased() }
        let row = normal(label), goal = normal(wanted)
        guard !goal.isEmpty else { return .none }
        if row == goal { return .exact }
        if let open = row.lastIndex(of: "("), row.hasSuffix(")"), open > row.startIndex,
           Text.trimmed(String(row[..<open])) == goal { return .exact }
        return row.hasPrefix(goal) ? .prefix : .none
    }

    /// The menu row whose label is `wanted`: an exact match first, else the one row it begins.
    /// Throws when several rows begin with it or none does, naming the rows there are.
    package static func find(_ wanted: String, in menu: [MenuItem], listed: String? = nil) throws -> MenuItem {
        let exact = menu.filter { matches($0.label, wanted) == .exact }
        if exact.count == 1 { return exact[0] }
        let prefixed = menu.filter { matches($0.label, wanted) == .prefix }
        if exact.isEmpty, prefixed.count == 1 { return prefixed[0] }
        let listed = listed ?? menu.map { "\($0.n). \(AnswerText.forTerminal($0.label))" }.joined(separator: "; ")
        if exact.count + prefixed.count > 1 {
            throw AnswerError.ambiguousChoice(choice: wanted, options: listed)
        }
        throw AnswerError.choiceNotShown(choice: wanted, options: listed)
    }
}

/// Untrusted text (an agent's screen, question or labels) made safe to print on a terminal.
/// One call site per output so the project's shared sanitizer can take its place.
package enum AnswerText {
    package static func forTerminal(_ text: String) -> String {
        PaneText.stripControls(Substring(text))
    }
}
