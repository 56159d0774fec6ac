/// The `hookctl` command line: finds the command, parses its options, runs it, and turns every
/// error into `hookctl: error: …` on stderr with a sysexits exit code.
public enum CommandLineTool {

    /// Every command, in the order `hookctl help` lists them.
    package static let commands: [any Command.Type] = [
        SetupCommand.self,
        UninstallCommand.self,
        DoctorCommand.self,
        TestCommand.self,
        NotifyCommand.self,
        OutboxListCommand.self,
        OutboxFlushCommand.self,
        OutboxListenCommand.self,
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
        HostsAddCommand.self,
        HostsListCommand.self,
        HostsRemoveCommand.self,
        HostsLinkCommand.self,
        HostsServeCommand.self,
        CompletionCommand.self,
        VersionCommand.self,
        HelpCommand.self,
    ]

    /// The global options that take no value.
    package static let globalFlags = ["--version", "--help"]

    /// Runs one command line (without the program name) and returns the exit code.
    public static func run(_ arguments: [String], context: CommandContext) -> Int32 {
        var context = context
        // Output to a closed pipe is an EPIPE error for the command to handle, never a silent death.
        _ = Subprocess.ignoreBrokenPipes
        // Started by the kernel as the interpreter of the hook script (`#!…/hookctl hook-script GATE`).
        if HookScript.isInterpreter(arguments) { return HookScript.run(arguments, context: context) }
        var arguments = arguments
        // Global options come before the command: `hookctl --config X --color never test`.
        var globalConfig: String?
        do {
            while let first = arguments.first, first.hasPrefix("--") {
                var (name, inline) = first.firstIndex(of: "=").map { (String(first[..<$0]), Optional(String(first[first.index(after: $0)...]))) } ?? (first, nil)
                if name == "--colour" { name = "--color" }
                guard name == "--config" || name == "--color" else {
                    // A mistyped global option is named as an option, not as an unknown command.
                    guard !globalFlags.contains(name) else { break }
                    throw UsageError(message: "unknown option '\(name)'" + Suggest.hint(for: name, in: ["--config", "--color"] + globalFlags)
                                     + " (options before the command: --config PATH, --color WHEN, --version, --help)")
                }
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
            context.write(HelpRenderer.overview(width: context.helpWidth))
            return ExitCode.ok.rawValue
        }
        // `session ls`, `outbox ls`: the short name people type.
        if arguments.count >= 2, arguments[1] == "ls", groupPrefix(arguments) != nil { arguments[1] = "list" }
        guard let (command, consumed) = resolve(arguments) else {
            let group = groupPrefix(arguments)
            if let group, arguments.count == group.count {
                context.write(HelpRenderer.group(group, width: context.helpWidth))
                return ExitCode.usage.rawValue
            }
            if let group, arguments.count == group.count + 1, ["--help", "-h"].contains(arguments[group.count]) {
                context.write(HelpRenderer.group(group, width: context.helpWidth))
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
                context.write(HelpRenderer.help(for: command.spec, width: context.helpWidth))
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
    package static func resolve(_ arguments: [String]) -> (any Command.Type, Int)? {
        var best: (any Command.Type, Int)?
        for command in commands {
            let path = command.path
            if path.count > (best?.1 ?? 0), arguments.starts(with: path) {
                best = (command, path.count)
            }
        }
        return best
    }

    /// The command group named by the first word (`session`, `outbox`), when there is one.
    package static func groupPrefix(_ arguments: [String]) -> [String]? {
        guard let first = arguments.first else { return nil }
        let grouped = commands.filter { $0.path.count > 1 && $0.path[0] == first }
        return grouped.isEmpty ? nil : [first]
    }
}

/// `hookctl help [COMMAND | TOPIC]`.
package enum HelpCommand: Command {
    package static let path = ["help"]
    package static let spec = CommandSpec(path: path, summary: "Show help for hookctl, one of its commands, or a topic.",
        usage: "[COMMAND | config | sinks | environment | exit-codes] [--man]",
        discussion: "--man prints the manual page in roff: hookctl(1), or hookctl-config(5) with 'config' (what install.sh installs: 'hookctl help --man > hookctl.1').",
        options: [Options.man],
        positionals: [("COMMAND", "The command to explain, e.g. 'session ensure', or a topic.")],
        maximumPositionals: 2)

    package struct Options: CommandOptions {
        package static let man = Flag("man", help: "Print the manual page (roff) instead.")

        /// The command or topic asked about (`ls` read as `list`).
        package var words: [String]
        package var man: Bool

        package init(parsing arguments: ParsedArguments) throws {
            words = arguments.positionals.map { $0 == "ls" ? "list" : $0 }
            man = arguments.flag(Self.man)
            if man, !words.isEmpty, words != ["config"] {
                throw UsageError(message: "manual pages: hookctl (no argument) and config", command: spec.path)
            }
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let words = options.words
        if options.man {
            context.standardOutput.write(words.isEmpty ? ManPage.hookctl() : ManPage.config())
            return .ok
        }
        if words.isEmpty {
            context.write(HelpRenderer.overview(width: context.helpWidth))
            return .ok
        }
        if words.count == 1, let topic = HelpTopic(rawValue: words[0]) {
            context.write(topic.help(width: context.helpWidth))
            return .ok
        }
        if let (command, consumed) = CommandLineTool.resolve(words), consumed == words.count {
            context.write(HelpRenderer.help(for: command.spec, width: context.helpWidth))
            return .ok
        }
        if let group = CommandLineTool.groupPrefix(words), words.count == 1 {
            context.write(HelpRenderer.group(group, width: context.helpWidth))
            return .ok
        }
        let names = CommandLineTool.commands.map { $0.spec.path[0] } + HelpTopic.allCases.map(\.rawValue)
        throw UsageError(message: "no help for '\(words.joined(separator: " "))': no such command or topic"
                         + Suggest.hint(for: words[0], in: names), command: spec.path)
    }
}

/// Renders help text from command specs, in swift-argument-parser's layout.
package enum HelpRenderer {
    package static func overview(width: Int = 80) -> String {
        var text = wrap("OVERVIEW: hookctl \(Product.version): agent hooks, tmux sessions and phone notifications", width: width, hanging: 2)
        text += "\n\n" + wrap("USAGE: hookctl [--config PATH] [--color auto|always|never] <command> [options]", width: width, hanging: 2)
        text += "\n\nCOMMANDS:\n"
        let column = min(24, (CommandLineTool.commands.map { $0.spec.fullName.count }.max() ?? 10) + 4)
        for command in CommandLineTool.commands {
            text += row(command.spec.fullName, command.spec.summary, column: column, width: width)
        }
        text += "\nHELP TOPICS:\n"
        for topic in HelpTopic.allCases { text += row(topic.rawValue, topic.summary, column: column, width: width) }
        text += "\nOPTIONS (before the command):\n"
        text += row("--config <PATH>", "Use this config file (also HOOKCTL_CONFIG).", column: column, width: width)
        text += row("--color <WHEN>", "auto (default: on a terminal, unless NO_COLOR or TERM=dumb), always or never; --colour too.",
                    column: column, width: width)
        text += row("--version", "Show the version.", column: column, width: width)
        text += row("-h, --help", "Show help information.", column: column, width: width)
        text += "\n" + wrap("See 'hookctl help <command>' or 'hookctl help <topic>' for detailed help.", width: width, indent: 2) + "\n"
        return text
    }

    package static func group(_ group: [String], width: Int = 80) -> String {
        var text = "USAGE: hookctl \(group.joined(separator: " ")) <subcommand> [options]\n\nSUBCOMMANDS:\n"
        let members = CommandLineTool.commands.filter { $0.spec.path.starts(with: group) }
        let column = (members.map { $0.spec.path.last!.count }.max() ?? 8) + 4
        for command in members {
            text += row(command.spec.path.last!, command.spec.summary, column: column, width: width)
        }
        text += "\n" + wrap("See 'hookctl help \(group.joined(separator: " ")) <subcommand>' for detailed help.", width: width, indent: 2) + "\n"
        return text
    }

    /// `text` word-wrapped to `width` display columns (never cut: a word longer than a line stands
    /// alone), each line after `indent` spaces.
    package static func wrap(_ text: String, width: Int, indent: Int = 0, hanging: Int? = nil) -> String {
        let lines = Terminal.wrap(text, columns: max(20, width - max(indent, hanging ?? indent)), breakWords: false)
        return lines.enumerated().map { index, line in
            String(repeating: " ", count: index == 0 ? indent : (hanging ?? indent)) + line
        }.joined(separator: "\n")
    }

    package static func help(for spec: CommandSpec, width: Int = 80) -> String {
        var text = "OVERVIEW: " + wrap(spec.summary, width: width - 10, hanging: 2) + "\n\n"
        text += "USAGE: " + wrap("hookctl \(spec.fullName) \(spec.usage)", width: width - 7, hanging: 2) + "\n"
        if !spec.discussion.isEmpty {
            // Paragraphs are re-flowed to fit the width; blank lines between them stay.
            let paragraphs = spec.discussion.split(separator: "\n\n", omittingEmptySubsequences: false).map {
                wrap($0.split(separator: "\n").map { Text.trimmed(String($0)) }.joined(separator: " "), width: width)
            }
            text += "\n" + paragraphs.joined(separator: "\n\n") + "\n"
        }
        let column = width < 60 ? 4 : 26
        if !spec.positionals.isEmpty {
            text += "\nARGUMENTS:\n"
            for positional in spec.positionals {
                text += row("<\(positional.name)>", positional.help, column: column, width: width)
            }
        }
        text += "\nOPTIONS:\n"
        for option in spec.allOptions {
            var left = option.short.map { "-\($0), " } ?? ""
            left += "--" + option.name
            if let valueName = option.valueName { left += " <\(valueName)>" }
            text += row(left, option.help, column: column, width: width)
        }
        return text
    }

    /// `  LEFT    text` with the text wrapped at `column` to `width` display columns; a LEFT too wide
    /// for the column (or a narrow screen) puts the text on the lines below, indented.
    package static func row(_ left: String, _ right: String, column: Int = 26, width: Int = 80) -> String {
        let lines = Terminal.wrap(right, columns: max(20, width - column), breakWords: false)
        let indent = String(repeating: " ", count: column)
        let rest = lines.dropFirst().map { indent + $0 + "\n" }.joined()
        if Terminal.columns(left) + 4 > column {
            return "  \(left)\n" + lines.map { indent + $0 + "\n" }.joined()
        }
        return "  " + Terminal.pad(left, column - 2) + lines[0] + "\n" + rest
    }
}
