/// Wording helpers the HTTP sinks share: the Markdown source of a message, URL templates, identifiers.
extension Event {
    /// The agent's text as Markdown, for sinks that render it (the plain `message` when there is no other).
    package var markdownSource: String { markdown ?? message }
}

extension SinkSettings {
    /// The message as Markdown: the sink's template (its `{message}` is the Markdown source) or the source
    /// itself, cut to `max_message` characters when set.
    package func markdownMessage(for event: Event) -> String {
        let text: String
        if let messageTemplate {
            var values = event.templateValues
            values["message"] = event.markdownSource
            text = renderTemplate(messageTemplate, values: values)
        } else {
            text = event.markdownSource
        }
        guard let maxMessage else { return text }
        return SinkMarkdown.cutRaw(text, limit: maxMessage, measure: .characters)
    }
}

extension SinkConfig {
    /// A list of event kind names (`silent: [done]`), each checked.
    package func eventKinds(_ key: String) throws -> Set<EventKind>? {
        guard let names = try stringList(key) else { return nil }
        return try Set(names.map { kindName in
            guard let kind = EventKind(rawValue: kindName) else {
                throw error(node[key], "unknown event kind '\(kindName)' in '\(key)'"
                    + Suggest.hint(for: kindName, in: EventKind.allCases.map(\.rawValue)))
            }
            return kind
        })
    }
}

package enum SinkText {
    /// Slack, Discord and Telegram refuse an empty message: this stands in when title and message are both empty.
    package static func fallbackText(for event: Event) -> String {
        "\(Event.displayName(event.agent)): \(event.kind.rawValue.replacing("_", with: " "))"
    }

    /// Fills a URL template (`ssh://{host}/…`, an app deep link): inserted values are percent-encoded
    /// where they hold characters a URL cannot carry (spaces, quotes, brackets, control and non-ASCII).
    package static func renderURLTemplate(_ template: String, event: Event) -> String {
        let values = event.templateValues.mapValues(percentEncodeUnsafe)
        return renderTemplate(template, values: values)
    }

    package static func percentEncodeUnsafe(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            let safe = byte > 0x20 && byte < 0x7f && !"\"<>\\^`{|}% ".utf8.contains(byte)
            if safe {
                output.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                output += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return output
    }

    /// A stable id from `text` limited to `[-_A-Za-z0-9]` and `maxLength` characters (ntfy's sequence id rule):
    /// other characters become `_`; a longer id keeps its start and ends with a hash of the whole, so two
    /// long ids that share a start stay apart.
    package static func identifier(_ text: String, maxLength: Int = 64) -> String {
        let mapped = String(text.unicodeScalars.map { scalar -> Character in
            let value = scalar.value
            let allowed = (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5a) || (value >= 0x61 && value <= 0x7a)
                || scalar == "-" || scalar == "_"
            return allowed ? Character(scalar) : "_"
        })
        guard mapped.count > maxLength else { return mapped }
        let hash = String(Text.fnv1a(text), radix: 16)
        return String(mapped.prefix(maxLength - hash.count - 1)) + "-" + hash
    }

    /// Header names are tokens; values must not break out of their line.
    package static func isValidHeaderName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            byte > 0x20 && byte < 0x7f && !"()<>@,;:\\\"/[]?={}".utf8.contains(byte)
        }
    }

    package static func isValidHeaderValue(_ value: String) -> Bool {
        !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
    }

    /// A JSON string's content without the surrounding quotes, for values put into JSON body templates.
    package static func jsonEscaped(_ text: String) -> String {
        String(JSON.quote(text).dropFirst().dropLast())
    }
}
