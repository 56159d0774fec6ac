nonisolated(unsafe) private var watchScreenSignal: Int32 = 0

/// The terminal of a full-screen watch (`status --watch`, `status --hosts --watch`): keys one by one
/// without echo (Ctrl-C arrives as a byte, so the screen is restored first), the alternate screen with
/// the cursor hidden, and the signals the watch waits for. `restore()` puts all three back.
package final class WatchScreen {
    package let screen: FileDescriptorStream
    package let input: Int32
    package let keyboard: Bool
    private var saved = termios()
    private let signals = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]
    private var previous: [sighandler_t?] = []

    /// The last of those signals received, 0 for none; the watch clears it once handled.
    package var lastSignal: Int32 {
        get { watchScreenSignal }
        set { watchScreenSignal = newValue }
    }

    package init(input: Int32, output: Int32) {
        self.input = input
        keyboard = isatty(input) != 0
        if keyboard {
            tcgetattr(input, &saved)
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
            tcsetattr(input, TCSANOW, &raw)
        }
        watchScreenSignal = 0
        let handler: @convention(c) (Int32) -> Void = { watchScreenSignal = $0 }
        for number in signals { previous.append(signal(number, handler)) }
        screen = FileDescriptorStream(fd: output)
        screen.write("\u{1B}[?1049h\u{1B}[?25l")
    }

    /// The main screen, the cursor and the terminal's modes back (before an exec, which keeps no defer).
    package func leave() {
        screen.write("\u{1B}[?25h\u{1B}[?1049l")
        if keyboard { tcsetattr(input, TCSANOW, &saved) }
    }

    /// `leave()`, and the signal handlers as they were.
    package func restore() {
        leave()
        for (number, old) in zip(signals, previous) { signal(number, old) }
    }
}
