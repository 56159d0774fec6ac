/// The `hookctl` command line: finds the command, parses its options, runs it, and turns every
/// error into `hookctl: error: …` on stderr with a sysexits exit code.
public enum CommandLineTool {

    /// Every command, in the order `hookctl help` lists them.
    static let commands: [any Command.Type] = [
        SetupCommand.self,
        UninstallCommand.self,
        DoctorCommand.self,
        TestCommand.self,
        NotifyCommand.self,
        OutboxListCommand.self,
        OutboxFlushCommand.self,
        OutboxDropCommand.self,
        OutboxRetryCommand.self,
        SessionEnsureCommand.self,
        SessionListCommand.self,
        SessionReconcileCommand.self,
        StatusCommand.self,
        EventsCommand.self,
        PeekCommand.self,
        JumpCommand.self,
        PresentWatchCommand.self,
        ReplyCommand.self,
        DismissCommand.self,
        DeployCommand.self,
        CompletionCommand.self,
        VersionCommand.self,
        HelpCommand.self,
    ]

    /// Runs one command line (without the program name) and returns the exit code.
    public static func run(_ arguments: [String], context: CommandContext) -> Int32 {
        var context = context
        // Output to a closed pipe is an EPIPE error for the command to handle, never a silent death.
        _ = Subprocess.ignoreBrokenPipes
        var arguments = arguments
        // Global options come before the command: `hookctl --config X --color never test`.
        var globalConfig: String?
        do {
            while let first = arguments.first, first.hasPrefix("--") {
                let (name, inline) = first.firstIndex(of: "=").map { (String(first[..<$0]), Optional(String(first[first.index(after: $0)...]))) } ?? (first, nil)
                guard name == "--config" || name == "--color" else { break }
                arguments.removeFirst()
                guard let value = inline ?? arguments.first.map({ _ in arguments.removeFirst() }) else {
                    throw UsageError(message: "\(name) needs a value (\(name == "--color" ? "auto, always or never" : "PATH"))")
                }
                if name == "--config" {
                    globalConfig = value
                } else {
                    guard let choice = ColorChoice(rawValue: value) else {
                        throw UsageError(message: "--color expects auto, always or never, got '\(value)'")
                    }
                    context.colorChoice = choice
                }
            }
        } catch let error as UsageError {
            context.printError(error.message)
            context.writeError("Usage: hookctl [--config PATH] [--color auto|always|never] <command> [options]\n")
            return ExitCode.usage.rawValue
        } catch {
            return ExitCode.software.rawValue
        }
        if arguments.first == "--version" || arguments.first == "-V" {
            context.print("hookctl \(Product.version)")
            return ExitCode.ok.rawValue
        }
        if arguments.isEmpty || arguments.first == "--help" || arguments.first == "-h" {
            context.write(HelpRenderer.overview())
            return ExitCode.ok.rawValue
        }
        // `session ls`, `outbox ls`: the short name people type.
        if arguments.count >= 2, arguments[1] == "ls", groupPrefix(arguments) != nil { arguments[1] = "list" }
        guard let (command, consumed) = resolve(arguments) else {
            let group = groupPrefix(arguments)
            if let group, arguments.count == group.count {
                context.write(HelpRenderer.group(group))
                return ExitCode.usage.rawValue
            }
            if let group, arguments.count == group.count + 1, ["--help", "-h"].contains(arguments[group.count]) {
                context.write(HelpRenderer.group(group))
                return ExitCode.ok.rawValue
            }
            let word = arguments[group?.count ?? 0]
            let names = group.map { g in commands.filter { $0.spec.path.starts(with: g) }.map { $0.spec.path[g.count] } }
                ?? Array(Set(commands.map { $0.spec.path[0] })).sorted()
            let hint = Suggest.hint(for: word, in: names)
            context.printError("unknown command '\(((group ?? []) + [word]).joined(separator: " "))'\(hint)")
            context.writeError("See 'hookctl help'.\n")
            return ExitCode.usage.rawValue
        }
        var rest = Array(arguments[consumed...])
        // The global `--config` joins the command's options, so both spellings meet the same rule: one
        // value, given twice only if it is the same (else "--config was given more than once"). It goes
        // before a `--`, after which every word is the command's operand (Codex's payload).
        if let globalConfig { rest.insert("--config=" + globalConfig, at: rest.firstIndex(of: "--") ?? rest.endIndex) }
        // A command asked for JSON gets its error as JSON on stdout too (the message also goes to stderr).
        let wantsJSON = rest.contains("--json")
        func reportJSON(_ error: HookctlError) {
            guard wantsJSON else { return }
            context.printJSON(.object(JSONObject([("error", .object(JSONObject([
                ("code", .string(error.code)), ("exit_code", .int(Int(error.exitCode.rawValue))), ("message", .string(error.description)),
            ])))])))
        }
        do {
            let parsed = try ArgumentParser.parse(rest, spec: command.spec)
            if parsed.flag(CommandSpec.help) {
                context.write(HelpRenderer.help(for: command.spec))
                return ExitCode.ok.rawValue
            }
            context.configOverride = parsed.config
            return try command.run(parsed: parsed, context: context).rawValue
        } catch let error as UsageError {
            reportJSON(error)
            context.printError(error.message)
            context.writeError("Usage: hookctl \(command.spec.fullName) \(command.spec.usage)\n")
            context.writeError("See 'hookctl \(command.spec.fullName) --help'.\n")
            return ExitCode.usage.rawValue
        } catch let error as HookctlError {
            reportJSON(error)
            context.printError(error.description)
            return error.exitCode.rawValue
        } catch {
            context.printError("\(error)")
            return ExitCode.software.rawValue
        }
    }

    /// The command whose path is the longest prefix of `arguments`, and how many words it used.
    static func resolve(_ arguments: [String]) -> (any Command.Type, Int)? {
        var best: (any Command.Type, Int)?
        for command in commands {
            let path = command.spec.path
            if arguments.count >= path.count, Array(arguments[0..<path.count]) == path, path.count > (best?.1 ?? 0) {
                best = (command, path.count)
            }
        }
        return best
    }

    /// The command group named by the first word (`session`, `outbox`), when there is one.
    static func groupPrefix(_ arguments: [String]) -> [String]? {
        guard let first = arguments.first else { return nil }
        let grouped = commands.filter { $0.spec.path.count > 1 && $0.spec.path[0] == first }
        return grouped.isEmpty ? nil : [first]
    }
}

/// `hookctl help [COMMAND | TOPIC]`.
enum HelpCommand: Command {
    static let spec = CommandSpec(
        path: ["help"], summary: "Show help for hookctl, one of its commands, or a topic.",
        usage: "[COMMAND | config | environment | exit-codes] [--man]",
        discussion: "--man prints the manual page in roff: hookctl(1), or hookctl-config(5) with 'config' (what install.sh installs: 'hookctl help --man > hookctl.1').",
        options: [Options.man],
        positionals: [("COMMAND", "The command to explain, e.g. 'session ensure', or a topic.")],
        maximumPositionals: 2)

    struct Options: CommandOptions {
        static let man = Flag("man", help: "Print the manual page (roff) instead.")

        /// The command or topic asked about (`ls` read as `list`).
        var words: [String]
        var man: Bool

        init(parsing arguments: ParsedArguments) throws {
            words = arguments.positionals.map { $0 == "ls" ? "list" : $0 }
            man = arguments.flag(Self.man)
            if man, !words.isEmpty, words != ["config"] {
                throw UsageError(message: "manual pages: hookctl (no argument) and config", command: spec.path)
            }
        }
    }

    static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let words = options.words
        if options.man {
            context.standardOutput.write(words.isEmpty ? ManPage.hookctl() : ManPage.config())
            return .ok
        }
        if words.isEmpty {
            context.write(HelpRenderer.overview())
            return .ok
        }
        if words.count == 1, let topic = HelpTopic(rawValue: words[0]) {
            context.write(topic.help)
            return .ok
        }
        if let (command, consumed) = CommandLineTool.resolve(words), consumed == words.count {
            context.write(HelpRenderer.help(for: command.spec))
            return .ok
        }
        if let group = CommandLineTool.groupPrefix(words), words.count == 1 {
            context.write(HelpRenderer.group(group))
            return .ok
        }
        let names = CommandLineTool.commands.map { $0.spec.path[0] } + HelpTopic.allCases.map(\.rawValue)
        throw UsageError(message: "no help for '\(words.joined(separator: " "))': no such command or topic"
                         + Suggest.hint(for: words[0], in: names), command: spec.path)
    }
}

/// Renders help text from command specs, in swift-argument-parser's layout.
enum HelpRenderer {
    static func overview() -> String {
        var text = """
        OVERVIEW: hookctl \(Product.version): agent hooks, tmux sessions and phone notifications

        USAGE: hookctl [--config PATH] [--color auto|always|never] <command> [options]

        COMMANDS:

        """
        let width = CommandLineTool.commands.map { $0.spec.fullName.count }.max() ?? 10
        for command in CommandLineTool.commands {
            let name = command.spec.fullName
            let summary = Text.wrap(command.spec.summary, width: 80 - width - 4)
            text += "  " + name + String(repeating: " ", count: width - name.count + 2) + summary[0] + "\n"
            summary.dropFirst().forEach { text += String(repeating: " ", count: width + 4) + $0 + "\n" }
        }
        text += """

        HELP TOPICS:
          config                  The configuration file: defaults and sinks.
          environment             Environment variables hookctl reads.
          exit-codes              Exit codes (sysexits).

        OPTIONS (before the command):
          --config <PATH>         Use this config file (also HOOKCTL_CONFIG).
          --color <WHEN>          auto (default: on a terminal, unless NO_COLOR or
                                  TERM=dumb), always or never.
          --version               Show the version.
          -h, --help              Show help information.

          See 'hookctl help <command>' or 'hookctl help <topic>' for detailed help.

        """
        return text
    }

    static func group(_ group: [String]) -> String {
        var text = "USAGE: hookctl \(group.joined(separator: " ")) <subcommand> [options]\n\nSUBCOMMANDS:\n"
        let members = CommandLineTool.commands.filter { $0.spec.path.starts(with: group) }
        let width = members.map { $0.spec.path.last!.count }.max() ?? 8
        for command in members {
            let name = command.spec.path.last!
            let summary = Text.wrap(command.spec.summary, width: 80 - width - 4)
            text += "  " + name + String(repeating: " ", count: width - name.count + 2) + summary[0] + "\n"
            summary.dropFirst().forEach { text += String(repeating: " ", count: width + 4) + $0 + "\n" }
        }
        text += "\n  See 'hookctl help \(group.joined(separator: " ")) <subcommand>' for detailed help.\n"
        return text
    }

    static func help(for spec: CommandSpec) -> String {
        var text = "OVERVIEW: " + Text.wrap(spec.summary, width: 70).joined(separator: "\n  ") + "\n\n"
        text += "USAGE: " + Text.wrap("hookctl \(spec.fullName) \(spec.usage)", width: 72).joined(separator: "\n         ") + "\n"
        if !spec.discussion.isEmpty {
            // Paragraphs are re-flowed to fit 80 columns; blank lines between them stay.
            let paragraphs = spec.discussion.split(separator: "\n\n", omittingEmptySubsequences: false).map {
                Text.wrap($0.split(separator: "\n").map { Text.trimmed(String($0)) }.joined(separator: " "), width: 78).joined(separator: "\n")
            }
            text += "\n" + paragraphs.joined(separator: "\n\n") + "\n"
        }
        if !spec.positionals.isEmpty {
            text += "\nARGUMENTS:\n"
            for positional in spec.positionals {
                text += row("<\(positional.name)>", positional.help)
            }
        }
        text += "\nOPTIONS:\n"
        for option in spec.allOptions {
            var left = option.short.map { "-\($0), " } ?? ""
            left += "--" + option.name
            if let valueName = option.valueName { left += " <\(valueName)>" }
            text += row(left, option.help)
        }
        return text
    }

    static func row(_ left: String, _ right: String) -> String {
        let column = 26
        let lines = Text.wrap(right, width: 80 - column)
        let rest = lines.dropFirst().map { String(repeating: " ", count: column) + $0 + "\n" }.joined()
        if left.count + 2 >= column {
            return "  \(left)\n" + lines.map { String(repeating: " ", count: column) + $0 + "\n" }.joined()
        }
        return "  " + left + String(repeating: " ", count: column - 2 - left.count) + lines[0] + "\n" + rest
    }
}
