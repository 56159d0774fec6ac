/// Markdown → plain text for lock screens, for the event's own `message`. The same parse
/// (cmark-gfm, `SinkMarkdown.parse`) and plain renderer every sink uses, so the event text and each
/// sink's text never disagree about what the agent wrote.
package enum Markdown {
    package static func plainText(_ text: String) -> String {
        // Text no Markdown rule applies to (most hook messages) skips the block tree: the same lines, cheaper.
        guard SinkMarkdown.mayHoldMarkdown(text) else { return SinkMarkdown.literalPlainText(text) }
        return SinkMarkdown.convert(text, to: .plain)
    }
}
