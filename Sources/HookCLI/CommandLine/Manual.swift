/// Help topics beyond single commands (`hookctl help config|sinks|environment|exit-codes`); the man
/// pages are generated from them and from the command specs, so help and manual never disagree.
package enum HelpTopic: String, CaseIterable, Sendable {
    case config, sinks, environment
    case exitCodes = "exit-codes"

    package var summary: String {
        switch self {
        case .config: return "The configuration file: defaults and sinks."
        case .sinks: return "Every sink type's keys, with an example."
        case .environment: return "Environment variables hookctl reads."
        case .exitCodes: return "Exit codes (sysexits)."
        }
    }

    /// The topic as plain text, fitted to `width` columns: paragraphs are re-flowed; indented blocks
    /// (examples, definition lists as `  NAME  text`) are kept as they are.
    package func text(width: Int = 78) -> String {
        if self == .sinks { return SinkKeys.help(width: width) }
        return source.split(separator: "\n\n", omittingEmptySubsequences: false).map { block in
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
            guard !lines.contains(where: { $0.hasPrefix(" ") }) else { return String(block) }
            return HelpRenderer.wrap(lines.joined(separator: " "), width: width)
        }.joined(separator: "\n\n")
    }

    /// The topic as written, at most 78 columns.
    private var source: String {
        switch self {
        case .sinks: return SinkKeys.help(width: 78)
        case .config:
            return """
            The config is $XDG_CONFIG_HOME/hookctl/config.yaml (by default
            ~/.config/hookctl/config.yaml, mode 0600); --config PATH or HOOKCTL_CONFIG use
            another file. No config is not an error: events are recorded and nothing is
            sent. Indent with spaces (YAML does not allow tabs).

              version: 1
              defaults:                 # all optional
                gate: SSHIDO_SESSION    # the variable that must be set for notify to push
                budget: 2s              # time notify may spend delivering on the hook path
                connect_timeout: 5s
                timeout: 10s            # per attempt
                retry: {base: 1s, max: 5m, expire: 24h}
                log: {max_size: 10MB, keep: 3}
                quiet:                  # recorded, not pushed
                  repeats: 10m          # the same push again within this; off
                  idle_after_done: true # an idle reminder after a finished turn
                  present: 120s         # while you type in the agent's tmux session; off
              sinks:
                - name: relay           # what setup writes: the phone's push relay
                  type: relay
                  url: "https://push.example.com/n/<token>"
                - name: team
                  type: slack
                  url_env: SLACK_WEBHOOK_URL   # secrets: KEY, KEY_env or KEY_file
                  kinds: [failed]

            gate is the variable that must be set (non-empty) for the hooks to push: setup
            writes it into every hook command, session ensure sets it in the sessions it
            makes, doctor checks it. quiet says what is recorded but not pushed:
            repeats (the same push again within this time; off pushes every one),
            idle_after_done (an agent's idle reminder after its turn was already reported
            done) and present (while you type in the agent's tmux session).

            Sink types: relay, webhook, ntfy, slack, discord, telegram, file, exec; each
            one's keys and an example: hookctl help sinks. Every sink takes kinds
            (default: needs_input, done, failed, test; file sinks take all), agents,
            priority (kind to the sink's own value), title and message templates
            ({Agent}, {agent}, {kind}, {title}, {message}, {session}, {project}, {repo},
            {branch}, {window}, {window_name}, {host}, {cwd}), max_title, max_message,
            timeout, connect_timeout, enabled. Secrets go in KEY, KEY_env (an environment
            variable) or KEY_file (a file). Every problem in the file is reported at once,
            each naming the file, line and column, with the key you probably meant.
            Durations: 500ms, 10s, 5m, 24h, 2d, or a number of seconds.
            """
        case .environment:
            return """
              HOOKCTL_CONFIG      The config file (as --config).
              XDG_CONFIG_HOME     Config directory base (default ~/.config).
              XDG_DATA_HOME       Generated hook scripts (default ~/.local/share).
              XDG_STATE_HOME      Outbox, event log and board (default ~/.local/state).
              SSHIDO_SESSION      The gate: notify pushes only when it is set (configurable
                                  with defaults.gate; notify --force overrides).
              HOOKCTL_TMUX        The tmux binary to use.
              TMUX, TMUX_PANE     The calling tmux pane, recorded with each event.
              TMUX_TMPDIR         Where tmux keeps its sockets.
              COLUMNS             The width human output is fitted to (--width wins).
              NO_COLOR            Set (non-empty): no colour (--color always wins).
              TERM                'dumb': no colour.
              HOOKCTL_NO_BACKGROUND  '1': no sender; notify delivers in the foreground.
              CURL_CA_BUNDLE      Certificate authorities to trust instead of the system's.
            """
        case .exitCodes:
            return """
              0   ok (warnings included)
              64  usage: the command line does not fit the command
              65  bad input data (a payload, an unknown event id)
              69  unavailable: a sink, tmux or an agent's settings did not work
              70  internal error
              73  cannot create a file
              75  temporary failure: try again later (outbox entries still pending)
              78  configuration error
            notify exits 0 whatever happens unless --strict is given.
            """
        }
    }

    /// The topic as help output, with its heading.
    package func help(width: Int = 78) -> String {
        HelpRenderer.wrap("\(rawValue.uppercased()): \(summary)", width: width, hanging: 2) + "\n\n\(text(width: width))\n"
    }
}

/// hookctl(1) and hookctl-config(5) in roff, generated from the command specs and the help topics.
package enum ManPage {
    /// `hookctl help --man` (section 1) and `hookctl help config --man` (section 5).
    package static func hookctl() -> String {
        var page = header(name: "HOOKCTL", section: 1)
        page += ".SH NAME\nhookctl \\- agent hooks, tmux sessions and phone notifications\n"
        page += ".SH SYNOPSIS\n.B hookctl\n[\\fB\\-\\-config\\fR \\fIPATH\\fR] [\\fB\\-\\-color\\fR \\fIauto|always|never\\fR] \\fIcommand\\fR [\\fIoptions\\fR]\n"
        page += ".SH DESCRIPTION\n"
        page += paragraphs("hookctl installs coding agents' hooks (Claude Code, Codex, Gemini CLI), delivers their events to sinks (the phone's push relay, ntfy, Slack, ...) without losing one or holding the agent, keeps the phone's tmux session, and shows a board (status, events).")
        page += ".SH GLOBAL OPTIONS\n"
        page += ".TP\n\\fB\\-\\-config\\fR \\fIPATH\\fR\nUse this config file instead of the default (also HOOKCTL_CONFIG).\n"
        page += ".TP\n\\fB\\-\\-color\\fR \\fIauto|always|never\\fR\nColour human output: on a terminal unless NO_COLOR is set or TERM is dumb (auto, the default), always, or never.\n"
        page += ".TP\n\\fB\\-\\-version\\fR\nShow the version.\n"
        page += ".SH COMMANDS\n"
        for command in CommandLineTool.commands {
            let spec = command.spec
            page += ".SS \(escape("hookctl \(spec.fullName)"))\n"
            page += ".B \(escape("hookctl \(spec.fullName)"))\n\(escape(spec.usage))\n.PP\n"
            page += paragraphs(spec.summary)
            if !spec.discussion.isEmpty { page += paragraphs(spec.discussion) }
            for option in spec.options {
                var left = option.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
                left += "\\fB" + escape("--" + option.name) + "\\fR"
                if let value = option.valueName { left += " \\fI\(escape(value))\\fR" }
                page += ".TP\n\(left)\n\(escape(option.help))\n"
            }
        }
        page += ".SH ENVIRONMENT\n" + definitions(HelpTopic.environment.text())
        page += ".SH EXIT STATUS\n" + definitions(HelpTopic.exitCodes.text())
        page += ".SH FILES\n"
        page += ".TP\n~/.config/hookctl/config.yaml\nThe config (see \\fBhookctl-config\\fR(5)).\n"
        page += ".TP\n~/.local/share/hookctl/\nGenerated hook scripts.\n"
        page += ".TP\n~/.local/state/hookctl/\nOutbox, event log and board state.\n"
        page += ".SH SEE ALSO\n\\fBhookctl-config\\fR(5), \\fBtmux\\fR(1)\n"
        return page
    }

    package static func config() -> String {
        var page = header(name: "HOOKCTL-CONFIG", section: 5)
        page += ".SH NAME\nhookctl-config \\- the hookctl configuration file\n"
        page += ".SH DESCRIPTION\n"
        let text = HelpTopic.config.text()
        // Indented lines are the example: kept verbatim.
        var inExample = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let isExample = line.hasPrefix("  ")
            if isExample != inExample { page += isExample ? ".PP\n.nf\n" : ".fi\n.PP\n"; inExample = isExample }
            if line.isEmpty { if !inExample { page += ".PP\n" }; continue }
            page += escape(String(line)) + "\n"
        }
        if inExample { page += ".fi\n" }
        page += sinks()
        page += ".SH SEE ALSO\n\\fBhookctl\\fR(1)\n"
        return page
    }

    /// The SINKS section: every type's keys and its example, from the table the config is checked
    /// against (`SinkKeys`), as `hookctl help sinks` shows it.
    package static func sinks() -> String {
        var page = ".SH SINKS\n"
        page += paragraphs("Each sink is one item of sinks: in the config. Keys marked * are required. A secret key (KEY | KEY_env | KEY_file) is given inline, by an environment variable the agent's hooks see, or by a file.")
        func keys(_ list: [SinkKey]) -> String {
            list.map { key in
                let name = (key.secret ? key.spellings.joined(separator: " | ") : key.name) + (key.required ? " *" : "")
                return ".TP\n\\fB\(escape(name))\\fR\n\(escape(key.meaning))\n"
            }.joined()
        }
        page += ".SS Every sink\n" + keys(SinkKeys.common)
        for type in SinkKeys.types {
            page += ".SS type: \(escape(type.type))\n" + escape(type.sends) + "\n" + keys(type.keys)
            page += ".PP\nExample:\n.PP\n.nf\n" + type.example.split(separator: "\n").map { escape(String($0)) + "\n" }.joined() + ".fi\n"
        }
        return page
    }

    package static func header(name: String, section: Int) -> String {
        ".TH \(name) \(section) \"\" \"hookctl \(Product.version)\" \"hookctl manual\"\n"
    }

    package static func paragraphs(_ text: String) -> String {
        text.split(separator: "\n\n").map { paragraph in
            escape(paragraph.split(separator: "\n").map { Text.trimmed(String($0)) }.joined(separator: " ")) + "\n"
        }.joined(separator: ".PP\n") + ".PP\n"
    }

    /// `  NAME   text` lines become `.TP` entries; a plain line a paragraph.
    package static func definitions(_ text: String) -> String {
        var output = ""
        for line in text.split(separator: "\n") {
            let trimmed = Text.trimmed(String(line))
            if line.hasPrefix("    ") {
                output += escape(trimmed) + "\n"
            } else if line.hasPrefix("  "), let gap = trimmed.firstRange(of: "  ") {
                output += ".TP\n\\fB\(escape(String(trimmed[..<gap.lowerBound])))\\fR\n"
                output += escape(Text.trimmed(String(trimmed[gap.upperBound...]))) + "\n"
            } else {
                output += ".PP\n" + escape(trimmed) + "\n"
            }
        }
        return output
    }

    /// Text safe in roff: backslashes and dashes escaped, no line starting with a control character.
    package static func escape(_ text: String) -> String {
        var result = text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
        if result.hasPrefix(".") || result.hasPrefix("'") { result = "\\&" + result }
        return result
    }
}
