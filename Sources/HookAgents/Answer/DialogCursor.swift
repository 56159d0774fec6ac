/// Moves a dialog's cursor one key at a time, reading the pane after each press: for agents whose
/// digits are not known to select, and to reach a multi-select's Submit row. It stops as soon as
/// the cursor does not move or leaves the dialog, so it never presses blindly.
package struct DialogCursor {
    package var driver: PaneDriver
    /// How long the agent gets to redraw after a key.
    package var settle: Double
    /// The keys pressed so far, in order.
    package private(set) var pressed: [String] = []

    package init(driver: PaneDriver, settle: Double) {
        self.driver = driver
        self.settle = settle
    }

    /// The focused row of the dialog on the pane now (read below the menu's first row, when one shows).
    package func focus() throws -> PaneText.Focus? {
        let lines = PaneText.lines(try driver.capture(history: 0).text)
        return PaneText.focused(lines, from: PaneText.line(of: 1, in: lines) ?? 0)
    }

    /// Presses `key(focus)` until `wanted` accepts the focused row, at most `limit` times. Returns that
    /// row, or nil when the pane shows no cursor, it stopped moving, or `limit` presses did not reach it.
    package mutating func move(to wanted: (PaneText.Focus) -> Bool, key: (PaneText.Focus) -> String, limit: Int) throws -> PaneText.Focus? {
        guard var current = try focus() else { return nil }
        for _ in 0..<limit {
            if wanted(current) { return current }
            let name = key(current)
            try driver.press(name)
            pressed.append(name)
            let before = current
            guard let moved = try driver.poll(within: settle, { try focus().flatMap { $0 != before ? $0 : nil } }) else { return nil }
            current = moved
        }
        return wanted(current) ? current : nil
    }

    /// The key that moves from `focus` toward `row` of an unnumbered menu (by the rows' order on screen).
    package static func toward(row: PaneText.MenuItem, in menu: ScreenMenu, from focus: PaneText.Focus) -> String {
        guard let at = menu.rows.firstIndex(where: { $0.label == focus.label }),
              let goal = menu.rows.firstIndex(where: { $0.label == row.label }) else { return "Down" }
        return goal < at ? "Up" : "Down"
    }

    /// The key that moves from `focus` toward the numbered row `n` (Down when the row has no number).
    package static func toward(_ n: Int, from focus: PaneText.Focus) -> String {
        guard let at = focus.n else { return "Down" }
        return n < at ? "Up" : "Down"
    }
}
