/// Markdown → plain text for lock screens, for the event's own `message`. The same parse
/// (cmark-gfm, `SinkMarkdown.parse`) and plain renderer every sink uses, so the event text and each
/// sink's text never disagree about what the agent wrote.
enum Markdown {
    static func plainText(_ text: String) -> String {
        SinkMarkdown.convert(text, to: .plain)
    }
}
