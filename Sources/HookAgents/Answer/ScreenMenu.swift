/// The dialog an agent's pane shows now, as rows a choice is matched against: a numbered menu
/// (`❯ 1. Yes` … `4. No`), or an unnumbered list with a cursor (Claude Code's auto-mode dialog
/// `❯ No` / `Yes`), whose rows are reached with the arrow keys. Read from the screen only: what a
/// hook payload said is never taken for a row, so no number or key is ever a guess.
package struct ScreenMenu: Sendable, Equatable {
    /// The rows, top to bottom: `n` is the screen's number, or the row's position when `numbered` is false.
    package var rows: [PaneText.MenuItem]
    package var numbered: Bool

    /// The menu on `lines` (the pane's screen), nil when none shows.
    package static func read(_ lines: [String], expected: [String] = []) -> ScreenMenu? {
        if let rows = PaneText.menu(lines, expected: expected) { return ScreenMenu(rows: rows, numbered: true) }
        if let rows = unnumbered(lines) { return ScreenMenu(rows: rows, numbered: false) }
        return nil
    }

    /// An unnumbered list with a cursor: the last line that starts with a cursor glyph and a label, and
    /// the lines right above and below it whose text starts in the same column (2 to 9 rows in all),
    /// under a question or over a footer that says how to answer. Lines of prose, borders and
    /// footers start elsewhere or are blank, so they end the list.
    package static func unnumbered(_ lines: [String]) -> [PaneText.MenuItem]? {
        func labelColumn(_ line: String) -> (column: Int, cursor: Bool, label: String)? {
            var column = 0
            var rest = Substring(line)
            while let first = rest.first, first == " " || first == "│" || first == "┃" { column += 1; rest = rest.dropFirst() }
            var cursor = false
            if let first = rest.first, PaneText.cursorGlyphs.contains(first), first != ">" || rest.dropFirst().first == " " {
                cursor = true
                rest = rest.dropFirst()
                column += 1
                while rest.first == " " { column += 1; rest = rest.dropFirst() }
            }
            let label = Text.trimmed(String(rest))
            // Borders, tool output (`⎿`), transcript bullets and spinners are never rows.
            guard !label.isEmpty, label.count <= 80, let head = label.unicodeScalars.first,
                  !"─━═╌╍┄┅-_=╭╰└┌⎿●⏺✻✽✶·*•".unicodeScalars.contains(head) else { return nil }
            return (column, cursor, label)
        }
        // A dialog is drawn at the bottom of the screen: a prompt echoed higher up in the transcript
        // (`❯ run the tests`) is not one.
        let bottom = max(0, lines.count - 15)
        guard let focusIndex = lines.indices.last(where: { index in
            guard index >= bottom else { return false }
            guard let row = labelColumn(lines[index]), row.cursor else { return false }
            return PaneText.menuRow(lines[index]) == nil
        }), let focus = labelColumn(lines[focusIndex]) else { return nil }
        func rowAt(_ index: Int) -> (column: Int, cursor: Bool, label: String)? {
            guard let row = labelColumn(lines[index]), row.column == focus.column, row.label.count <= 120,
                  PaneText.menuRow(lines[index]) == nil else { return nil }
            return row
        }
        var first = focusIndex
        while first > 0, first > focusIndex - 8, rowAt(first - 1) != nil { first -= 1 }
        var last = focusIndex
        while last + 1 < lines.count, last < focusIndex + 8, rowAt(last + 1) != nil { last += 1 }
        let rows = (first...last).compactMap { index -> PaneText.MenuItem? in
            guard let row = rowAt(index) else { return nil }
            return PaneText.MenuItem(n: index - first + 1, label: row.label, focused: row.cursor)
        }
        guard (2...9).contains(rows.count), rows.filter(\.focused).count == 1 else { return nil }
        // A dialog asks (`Do you want to proceed?` right above its rows) or says how to answer it (a
        // footer with `Esc` or `Enter` right below): a prompt echoed in the transcript does neither.
        let asks = first > 0 && Text.trimmed(lines[first - 1]).hasSuffix("?")
        let footer = lines[(last + 1)..<min(lines.count, last + 3)].contains { $0.contains("Esc") || $0.contains("Enter") }
        guard asks || footer else { return nil }
        return rows
    }

    /// The rows as a person reads them: `1. Yes; 2. No`, or `Yes; No` when the screen shows no numbers.
    package var listed: String {
        rows.map { (numbered ? "\($0.n). " : "") + AnswerText.forTerminal($0.label) }.joined(separator: "; ")
    }

    /// The row for `wanted`: its label (exact, else the one row it begins), or for a free-text choice
    /// (`Other`) the row that takes free text, whatever the agent calls it (`Type something.`).
    package func find(_ wanted: String, freeTextLabels: [String]) throws -> PaneText.MenuItem {
        do {
            return try PaneText.find(wanted, in: rows, listed: listed)
        } catch let error as AnswerError {
            guard freeTextLabels.contains(where: { PaneText.matches($0, wanted) == .exact }),
                  let row = rows.first(where: { row in freeTextLabels.contains { PaneText.matches(row.label, $0) == .exact } })
            else { throw error }
            return row
        }
    }

    /// The question as the screen shows it, for the board and `peek`: the recorded text, the screen's rows.
    package func question(text: String, multiSelect: Bool = false, count: Int = 1) -> Question {
        Question(text: text, options: rows.prefix(Question.optionLimit).map {
            Question.Option(n: numbered ? $0.n : nil, label: Text.truncate(Question.clean($0.label), characters: Question.labelLimit))
        }, multiSelect: multiSelect, count: count, fromScreen: true)
    }
}
