/// One key a sink takes: its name, what it means, and whether it is required or a secret.
package struct SinkKey: Sendable {
    package var name: String
    package var meaning: String
    package var required = false
    /// A secret: it may also be given as `NAME_env` (an environment variable) or `NAME_file` (a file).
    package var secret = false

    package init(_ name: String, _ meaning: String, required: Bool = false, secret: Bool = false) {
        self.name = name
        self.meaning = meaning
        self.required = required
        self.secret = secret
    }

    /// The names the key may be written as in the config.
    package var spellings: [String] { secret ? SinkConfig.secretKeys(name) : [name] }
}

/// One sink type as the help shows it: what it sends, its own keys, and an example.
package struct SinkTypeKeys: Sendable {
    package var type: String
    package var sends: String
    package var keys: [SinkKey]
    /// The example sink, as YAML lines under `sinks:` (indented by two).
    package var example: String
}

/// Every sink type's keys: the one table the config reader checks keys against (`SinkType.keys`) and
/// `hookctl help sinks`, the config man page and README render. Edit a sink's keys here.
package enum SinkKeys {
    /// Keys every sink takes, whatever its type.
    package static let common: [SinkKey] = [
        SinkKey("name", "The sink's name (unique; `test --sink NAME`, outbox and doctor use it).", required: true),
        SinkKey("type", "relay, webhook, ntfy, slack, discord, telegram, pushover, file or exec.", required: true),
        SinkKey("enabled", "false keeps the sink in the config without sending to it."),
        SinkKey("kinds", "Event kinds it takes (default needs_input, done, failed, test; file: all)."),
        SinkKey("agents", "Only events of these agents (claude, codex, gemini, ...)."),
        SinkKey("priority", "Kind to the sink's own priority value, e.g. {done: low, failed: urgent}."),
        SinkKey("title", "Title template: {Agent} {agent} {kind} {title} {message} {session} {project} {repo} {branch} {window} {window_name} {host} {cwd}."),
        SinkKey("message", "Message template (the same fields)."),
        SinkKey("max_title", "Cut titles to this many characters."),
        SinkKey("max_message", "Cut messages to this many characters."),
        SinkKey("timeout", "Per attempt (default defaults.timeout, 10s)."),
        SinkKey("connect_timeout", "Connecting (default defaults.connect_timeout, 5s)."),
    ]

    package static let types: [SinkTypeKeys] = [
        SinkTypeKeys(
            type: "relay", sends: "The phone's push relay: POST JSON {title, body, priority, sessionRef, hostRef}, at most 4 KiB.",
            keys: [SinkKey("url", "The notify URL the phone app gives (the whole credential).", required: true, secret: true)],
            example: """
            - name: relay
              type: relay
              url_file: ~/.config/hookctl/notify-url
            """),
        SinkTypeKeys(
            type: "webhook", sends: "The event as JSON (or a body template), with Idempotency-Key and an optional Standard Webhooks signature.",
            keys: [
                SinkKey("url", "Where to send.", required: true, secret: true),
                SinkKey("method", "POST (default) or PUT."),
                SinkKey("headers", "A mapping of extra headers; Authorization and other credential headers are redacted in output."),
                SinkKey("body", "A body template; values are JSON-escaped; {json} is the default envelope, {event_json} the event."),
                SinkKey("secret", "Signs each request (webhook-signature); whsec_<base64> or raw bytes.", secret: true),
                SinkKey("github_signature", "true: also X-Hub-Signature-256 (needs secret)."),
            ],
            example: """
            - name: ci
              type: webhook
              url: https://ci.example.com/hooks/agents
              secret_env: AGENT_WEBHOOK_SECRET
              headers: {X-Team: platform}
            """),
        SinkTypeKeys(
            type: "ntfy", sends: "An ntfy publish: title, priority 1-5, tags, click URL, Markdown, a sequence id per agent session (an answered question is updated in place under it).",
            keys: [
                SinkKey("url", "The topic URL, e.g. https://ntfy.sh/my-topic (the topic is a password).", required: true, secret: true),
                SinkKey("token", "An access token (sent as Bearer).", secret: true),
                SinkKey("tags", "Tags added to the kind's emoji tag."),
                SinkKey("click", "A URL template opened on tap, e.g. ssh://{host}."),
                SinkKey("markdown", "true: ntfy renders the message as Markdown."),
                SinkKey("sequence_id", "A template; the same id replaces the notification (empty: off)."),
                SinkKey("icon", "An icon URL."),
                SinkKey("reply_topic", "Answer from the push: a second topic on the same server the phone posts answers to "
                        + "(a password too); needs_input pushes get up to 3 buttons (the dialog's Yes/No, or its first two options, then Open when click is set).",
                        secret: true),
                SinkKey("actions", "on|off: off gives no answer buttons even with reply_topic (default on)."),
            ],
            example: """
            - name: phone
              type: ntfy
              url_env: NTFY_TOPIC_URL
              token_file: ~/.config/hookctl/ntfy-token
              tags: [robot]
              priority: {needs_input: urgent}
            """),
        SinkTypeKeys(
            type: "slack", sends: "An incoming webhook message in Slack's mrkdwn.",
            keys: [SinkKey("url", "The incoming webhook URL.", required: true, secret: true)],
            example: """
            - name: team
              type: slack
              url_env: SLACK_WEBHOOK_URL
              kinds: [failed]
            """),
        SinkTypeKeys(
            type: "discord", sends: "A webhook message in Discord Markdown, at most 2000 characters, mentions off.",
            keys: [
                SinkKey("url", "The webhook URL.", required: true, secret: true),
                SinkKey("username", "The name shown (default hookctl; empty keeps the webhook's own)."),
                SinkKey("avatar_url", "The avatar shown."),
                SinkKey("silent", "Kinds sent without a push (default [done])."),
                SinkKey("thread_id", "Post into this thread (its numeric id)."),
            ],
            example: """
            - name: discord
              type: discord
              url_file: ~/.config/hookctl/discord-url
              silent: [done]
            """),
        SinkTypeKeys(
            type: "telegram", sends: "A bot message (sendMessage) in Telegram's HTML, at most 4096 characters; edited to \"answered\" once its question is answered.",
            keys: [
                SinkKey("token", "The bot token from @BotFather, 123456:ABC-DEF...", required: true, secret: true),
                SinkKey("chat_id", "The numeric chat id, or @channelname.", required: true),
                SinkKey("api_url", "The Bot API server (default https://api.telegram.org)."),
                SinkKey("parse_mode", "html (default) or none."),
                SinkKey("silent", "Kinds sent with disable_notification (default [done])."),
                SinkKey("message_thread_id", "Post into this forum topic."),
                SinkKey("actions", "on|off (default off): on gives needs_input messages answer buttons (an inline keyboard, up to 4 options); the listener long-polls getUpdates, so the bot must have no webhook."),
            ],
            example: """
            - name: telegram
              type: telegram
              token_env: TELEGRAM_BOT_TOKEN
              chat_id: "-1001234567890"
            """),
        SinkTypeKeys(
            type: "pushover", sends: "A Pushover message (form POST to /1/messages.json) in Pushover's HTML, at most 1024 characters; with e2ee_key, encrypted end to end (pushover.net/api#e2ee): Pushover and every relay see only ciphertext. Questions sent at emergency priority stop repeating once answered (cancel_by_tag).",
            keys: [
                SinkKey("token", "The application's API token.", required: true, secret: true),
                SinkKey("user", "The user or group key.", required: true, secret: true),
                SinkKey("e2ee_key", "The device's end-to-end key from Pushover's app: 32 bytes as 64 hex digits or base64. Message, title, url and url_title are then gzipped, AES-256-CBC encrypted and HMAC-SHA256 authenticated, and the limits apply to the ciphertext (url_title, 100, never fits and is left out). Keep it in a file (e2ee_key_file).", secret: true),
                SinkKey("device", "Only these devices (comma-separated names)."),
                SinkKey("sound", "A sound name (pushover, bike, none...)."),
                SinkKey("url", "A URL template shown with the message, e.g. ssh://{host} (left out when over 512 characters)."),
                SinkKey("url_title", "The URL's title (a template, at most 100 characters)."),
                SinkKey("html", "false: plain text instead of Pushover's HTML from the Markdown (default true)."),
                SinkKey("api_url", "The API server (default https://api.pushover.net)."),
            ],
            example: """
            - name: pushover
              type: pushover
              token_file: ~/.config/hookctl/pushover-token
              user_file: ~/.config/hookctl/pushover-user
              e2ee_key_file: ~/.config/hookctl/pushover-e2ee-key
              priority: {done: low}
            """),
        SinkTypeKeys(
            type: "file", sends: "One JSON line per event (all kinds by default), appended under a lock.",
            keys: [
                SinkKey("path", "The file (~ and $VAR expanded).", required: true),
                SinkKey("mode", "Its mode when created, octal (default 0600)."),
            ],
            example: """
            - name: log
              type: file
              path: ~/agent-events.jsonl
            """),
        SinkTypeKeys(
            type: "exec", sends: "Runs a program (argv, no shell) with the event JSON on stdin; exit 0 ok, 75 retry later, else failed.",
            keys: [
                SinkKey("command", "The program and its arguments, a list.", required: true),
                SinkKey("env", "A mapping of extra environment variables (their values are treated as secrets)."),
            ],
            example: """
            - name: mine
              type: exec
              command: [/usr/local/bin/my-notifier, --quiet]
            """),
    ]

    /// Every name a key of `type` may be written as (its own keys; the common ones are apart).
    package static func names(of type: String) -> [String] {
        types.first { $0.type == type }?.keys.flatMap(\.spellings) ?? []
    }

    package static var commonNames: [String] { common.map(\.name) }

    /// `hookctl help sinks`: every type's keys and an example, as plain text that fits `width` columns
    /// (definition lists as `  NAME  text`, examples indented: the man page reads the same layout).
    package static func help(width: Int) -> String {
        var lines: [String] = []
        func paragraph(_ text: String) { lines += Terminal.wrap(text, columns: max(20, width), breakWords: false) }
        func definitions(_ keys: [SinkKey]) {
            let column = min(24, max(12, width / 3))
            for key in keys {
                var left = key.secret ? key.spellings.joined(separator: " | ") : key.name
                if key.required { left += " *" }
                let text = Terminal.wrap(key.meaning, columns: max(20, width - column), breakWords: false)
                if Terminal.columns(left) + 2 > width {
                    // Spellings wider than the terminal: one per line (`reply_topic | reply_topic_env |` …).
                    let spellings = key.spellings
                    lines += spellings.enumerated().map { index, spelling in
                        "  " + spelling + (index < spellings.count - 1 ? " |" : (key.required ? " *" : ""))
                    }
                    lines += text.map { String(repeating: " ", count: column) + $0 }
                } else if Terminal.columns(left) + 4 > column {
                    lines.append("  " + left)
                    lines += text.map { String(repeating: " ", count: column) + $0 }
                } else {
                    lines.append("  " + Terminal.pad(left, column - 2) + text[0])
                    lines += text.dropFirst().map { String(repeating: " ", count: column) + $0 }
                }
            }
        }
        paragraph("Each sink is one item of 'sinks:' in the config (hookctl help config). Keys marked * are required. A secret key (KEY | KEY_env | KEY_file) is given inline, by an environment variable the agent's hooks see, or by a file read when the event is sent: keep secrets in a file.")
        lines.append("")
        lines.append("Every sink:")
        definitions(common)
        for type in types {
            lines.append("")
            lines.append("type: \(type.type)")
            lines += Terminal.wrap(type.sends, columns: max(20, width - 2), breakWords: false).map { "  " + $0 }
            definitions(type.keys)
            lines.append("  Example:")
            lines += type.example.split(separator: "\n").map { "    " + $0 }
        }
        return lines.joined(separator: "\n")
    }
}
