/// Everything a command may touch of the outside world, injected so commands run in-process in tests.
public struct CommandContext: Sendable {
    package var environment: [String: String]
    package var standardOutput: OutputStream
    package var standardError: OutputStream
    /// The descriptor commands read their input from (notify's payload, reconcile's records).
    package var standardInput: Int32
    package var workingDirectory: String

    package init(environment: [String: String], standardOutput: OutputStream, standardError: OutputStream,
                standardInput: Int32, workingDirectory: String) {
        self.environment = environment
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.standardInput = standardInput
        self.workingDirectory = workingDirectory
    }

    /// The real process: its environment, file descriptors and working directory.
    public static func process() -> CommandContext {
        let cwd = currentDirectory() ?? "/"
        return CommandContext(environment: processEnvironment(),
                              standardOutput: FileDescriptorStream.standardOutput,
                              standardError: FileDescriptorStream.standardError,
                              standardInput: STDIN_FILENO, workingDirectory: cwd)
    }

    /// The config file `--config` names, before the command or after it (nil: the default); the
    /// dispatcher sets it once from the parsed command line.
    package var configOverride: String?

    /// The paths, with the config file `--config` names.
    package func paths() -> Paths {
        Paths(environment: environment, configOverride: configOverride)
    }

    /// `--color` given before the command (auto unless said otherwise).
    package var colorChoice: ColorChoice = .auto
    /// Tests set this to treat a buffer as a terminal; nil: ask the real descriptor.
    package var outputIsTerminalOverride: Bool?

    /// The process's own standard output descriptor, when that is where this context writes.
    package var outputDescriptor: Int32? {
        standardOutput === FileDescriptorStream.standardOutput ? STDOUT_FILENO : nil
    }

    /// Whether standard output is a terminal (a person reads it as it comes).
    package var outputIsTerminal: Bool {
        outputIsTerminalOverride ?? outputDescriptor.map { isatty($0) != 0 } ?? false
    }

    /// Whether human output gets colour: `--color`, `NO_COLOR`, `TERM=dumb`, and a terminal.
    package var usesColor: Bool { colorChoice.enabled(environment: environment, isTerminal: outputIsTerminal) }

    /// The width help text is wrapped to: the terminal's (or COLUMNS), between 30 and 100 columns; 80
    /// into a pipe or a file. Help is wrapped, never cut.
    package var helpWidth: Int { min(100, max(30, layout(width: nil).width)) }

    /// The width to fit human output to: `--width`, `COLUMNS`, the terminal; cut only on a terminal
    /// or when a width was asked for.
    package func layout(width option: Int?) -> TerminalLayout {
        var layout = Terminal.layout(option: option, environment: environment, terminal: outputDescriptor)
        if let outputIsTerminalOverride, option == nil { layout.cuts = outputIsTerminalOverride }
        return layout
    }

    // Every human-readable line goes through TerminalText: what agents, servers or tmux wrote is
    // shown, never obeyed by the terminal. Only printJSON writes unfiltered (JSON escapes on its own).
    package func print(_ text: String) { standardOutput.write(TerminalText.visible(text) + "\n") }
    package func print(_ text: TerminalText) { standardOutput.write(text.rendered(color: usesColor) + "\n") }
    package func print(_ lines: [TerminalText]) {
        let color = usesColor
        standardOutput.write(TerminalText.rendered(lines, color: color))
    }
    /// Writes human-readable text as it is (line breaks included), made inert.
    package func write(_ text: String) { standardOutput.write(TerminalText.visible(text)) }
    package func printError(_ text: String) { diagnostic("error:", .boldRed, text) }
    package func warn(_ text: String) { diagnostic("warning:", .yellow, text) }
    /// `hookctl: error: …` on stderr, the label coloured when stderr is a terminal that takes colour.
    private func diagnostic(_ label: String, _ style: TerminalStyle, _ text: String) {
        let terminal = standardError === FileDescriptorStream.standardError && isatty(STDERR_FILENO) != 0
        let color = colorChoice.enabled(environment: environment, isTerminal: terminal)
        standardError.write((TerminalText("hookctl: ") + TerminalText(label, style: style) + " " + text).rendered(color: color) + "\n")
    }
    package func note(_ text: String) { standardError.write("hookctl: \(TerminalText.visible(text))\n") }
    /// Writes human-readable text to standard error as it is, made inert.
    package func writeError(_ text: String) { standardError.write(TerminalText.visible(text)) }

    /// Prints one JSON document on standard output.
    package func printJSON(_ value: JSONValue, pretty: Bool = false) {
        standardOutput.write((pretty ? JSON.serializePretty(value) : JSON.serialize(value)) + "\n")
    }
}

/// A hookctl command: its spec (names, options, help), its options as one typed value, and what it does.
/// The library returns values and errors; only `run` talks to the context's streams.
package protocol Command: Sendable {
    associatedtype Options: CommandOptions
    /// The words that name the command (`["session", "ensure"]`), apart from its spec: finding the
    /// command a line names builds no other command's help.
    static var path: [String] { get }
    static var spec: CommandSpec { get }
    static func run(_ options: Options, context: CommandContext) throws -> ExitCode
}

extension Command {
    /// Decodes the command line into the command's options (all usage checks), then runs the command.
    package static func run(parsed arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        try run(Options(parsing: arguments), context: context)
    }
}

/// The process environment, read straight from `environ` (cheaper than ProcessInfo on the hook path).
package func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var cursor = environ
    while let entry = cursor.pointee {
        let length = strlen(entry)
        let text = UnsafeRawBufferPointer(start: entry, count: length)
        if let equals = text.firstIndex(of: UInt8(ascii: "=")), equals > 0 {
            let key = String(decoding: text[..<equals], as: UTF8.self)
            if result[key] == nil { result[key] = String(decoding: text[(equals + 1)...], as: UTF8.self) }
        }
        cursor += 1
    }
    return result
}
