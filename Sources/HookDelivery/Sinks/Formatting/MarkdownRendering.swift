/// How a target counts the length of text: grapheme clusters, UTF-16 code units (Telegram, Discord) or
/// UTF-8 bytes (ntfy). Cutting always happens between whole characters, so nothing multi-byte is split.
package enum TextMeasure: Sendable {
    case characters
    case utf16
    case utf8

    package func count(_ text: String) -> Int {
        switch self {
        case .characters: return text.count
        case .utf16: return text.utf16.count
        case .utf8: return text.utf8.count
        }
    }

    package func count(_ character: Character) -> Int {
        switch self {
        case .characters: return 1
        case .utf16: return character.utf16.count
        case .utf8: return character.utf8.count
        }
    }

    /// The longest prefix of `text`, in whole characters, that fits in `budget`.
    package func prefix(_ text: String, fitting budget: Int) -> String {
        guard budget > 0 else { return "" }
        if count(text) <= budget { return text }
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let size = count(text[index])
            if used + size > budget { break }
            used += size
            end = text.index(after: index)
        }
        return String(text[..<end])
    }

    /// `text` cut to `limit` with `…` at the end when it was longer.
    package func truncate(_ text: String, to limit: Int) -> String {
        guard count(text) > limit else { return text }
        let budget = limit - count("…")
        guard budget > 0 else { return "" }
        return prefix(text, fitting: budget) + "…"
    }
}

/// The dialects a sink can send Markdown in.
package enum MarkdownDialect: Sendable {
    /// Markup removed (lock screens, `message_plain`).
    case plain
    /// Slack mrkdwn: `*b*`, `_i_`, `~s~`, `<url|label>`, with `& < >` escaped.
    case slack
    /// Telegram's HTML subset (`parse_mode: HTML`): `<b> <i> <s> <code> <pre> <a href>`, with `< > &` escaped.
    case telegramHTML
    /// Pushover's HTML (`html=1`, pushover.net/api#html): `<b> <i> <u> <font color> <a href>` only, with
    /// `< > &` escaped; code and struck text are shown as their text.
    case pushoverHTML
    /// Discord's Markdown, written back from the tree: `**b**`, `*i*`, `~~s~~`, `[label](<url>)`, with the
    /// characters Discord would read as markup backslash-escaped in text.
    case discord
}

extension SinkMarkdown {
    /// Renders Markdown text in a dialect, cut so the reader sees at most `limit` (in `measure` units) with `…`.
    /// The cut happens on the parsed text, so no tag, entity or escape is ever split and every tag is closed.
    package static func convert(_ text: String, to dialect: MarkdownDialect, limit: Int? = nil, measure: TextMeasure = .characters) -> String {
        guard let limit else { return render(parse(text), as: dialect) }
        return render(fit(parse(bounded(text, limit: limit)), dialect: dialect, limit: limit, measure: measure), as: dialect)
    }

    /// Far more source than a `limit` can show is dropped before parsing, so a huge message costs little.
    package static func bounded(_ text: String, limit: Int) -> String {
        cutRaw(text, limit: limit * 2 + 4096, measure: .characters)
    }

    package static func render(_ blocks: [MarkdownBlock], as dialect: MarkdownDialect) -> String {
        joined(blocks, separator: "\n") { render($0, as: dialect) }
    }

    /// The text a reader of `dialect` sees: Telegram's limit counts it after entity parsing.
    package static func visibleText(_ blocks: [MarkdownBlock], dialect: MarkdownDialect) -> String {
        joined(blocks, separator: "\n") { visibleText($0, dialect: dialect) }
    }

    /// Each item's text, `separator` between them. Written out rather than `map(_:).joined(separator:)`,
    /// which runs generic (the standard library's unspecialized entry): its first call looks up a protocol
    /// conformance through every one in the binary, 0.16 M instructions of a hook's 2.1 M.
    private static func joined<Item>(_ items: [Item], separator: String = "", _ text: (Item) -> String) -> String {
        var output = ""
        for (index, item) in items.enumerated() {
            if index > 0 { output += separator }
            output += text(item)
        }
        return output
    }

    // MARK: Rendering

    package static func render(_ block: MarkdownBlock, as dialect: MarkdownDialect) -> String {
        switch block {
        case .blank: return ""
        case .rule: return "—"
        case .line(let prefix, let content): return escape(prefix, dialect) + render(content, as: dialect)
        case .heading(let content):
            let inner = render(content, as: dialect)
            switch dialect {
            case .plain: return inner
            case .slack: return inner.isEmpty ? "" : "*\(inner)*"
            case .telegramHTML, .pushoverHTML: return "<b>\(inner)</b>"
            case .discord: return inner.isEmpty ? "" : "**\(inner)**"
            }
        case .code(let language, let text):
            switch dialect {
            case .plain: return text
            case .pushoverHTML: return escape(text, .pushoverHTML)
            case .slack: return "```\n\(escape(text, .slack))\n```"
            case .telegramHTML:
                let safeLanguage = language.filter { $0.isASCII && ($0.isLetter || $0.isNumber || "+#_-".contains($0)) }
                if safeLanguage.isEmpty { return "<pre>\(escape(text, .telegramHTML))</pre>" }
                return "<pre><code class=\"language-\(safeLanguage)\">\(escape(text, .telegramHTML))</code></pre>"
            case .discord:
                let safeLanguage = language.filter { $0.isASCII && ($0.isLetter || $0.isNumber || "+#_-".contains($0)) }
                // A fence inside the code would close the block early: break it with a zero-width space.
                return "```\(safeLanguage)\n\(text.replacing("```", with: "`\u{200B}``"))\n```"
            }
        }
    }

    package static func render(_ inlines: [MarkdownInline], as dialect: MarkdownDialect) -> String {
        joined(inlines) { render($0, as: dialect) }
    }

    package static func render(_ inline: MarkdownInline, as dialect: MarkdownDialect) -> String {
        switch inline {
        case .text(let text): return escape(text, dialect)
        case .code(let code):
            switch dialect {
            case .plain: return code
            case .slack: return "`\(escape(code, .slack))`"
            case .telegramHTML: return "<code>\(escape(code, .telegramHTML))</code>"
            case .pushoverHTML: return escape(code, .pushoverHTML)
            case .discord:
                guard !code.isEmpty else { return "" }
                return code.contains("`") ? "`` \(code.replacing("``", with: "`\u{200B}`")) ``" : "`\(code)`"
            }
        case .strong(let content): return wrap(content, dialect, slack: "*", html: "b")
        case .emphasis(let content): return wrap(content, dialect, slack: "_", html: "i")
        case .strike(let content): return wrap(content, dialect, slack: "~", html: "s")
        case .link(let label, let url):
            let labelText = visibleText(label, dialect: .plain)
            switch dialect {
            case .plain:
                return url.isEmpty || labelText == url ? labelText : "\(labelText) (\(url))"
            case .slack:
                guard !url.isEmpty else { return render(label, as: .slack) }
                let target = escape(url, .slack).replacing("|", with: "%7C")
                return labelText == url || labelText.isEmpty ? "<\(target)>" : "<\(target)|\(escape(labelText, .slack))>"
            case .telegramHTML, .pushoverHTML:
                guard telegramLinkable(url) else { return escape(visibleText([inline], dialect: dialect), dialect) }
                let inner = labelText.isEmpty ? escape(url, dialect) : render(label, as: dialect)
                return "<a href=\"\(escapeAttribute(url))\">\(inner)</a>"
            case .discord:
                guard !url.isEmpty else { return render(label, as: .discord) }
                let target = url.replacing(" ", with: "%20").replacing(")", with: "%29").replacing(">", with: "%3E")
                if labelText == url || labelText.isEmpty { return "<\(target)>" }
                guard telegramLinkable(url) else { return render(label, as: .discord) + " (" + escape(url, .discord) + ")" }
                return "[\(render(label, as: .discord))](<\(target)>)"
            }
        }
    }

    package static func wrap(_ content: [MarkdownInline], _ dialect: MarkdownDialect, slack: String, html: String) -> String {
        let inner = render(content, as: dialect)
        switch dialect {
        case .plain: return inner
        case .slack: return inner.isEmpty ? "" : slack + inner + slack
        case .telegramHTML: return "<\(html)>\(inner)</\(html)>"
        case .pushoverHTML: return html == "s" ? inner : "<\(html)>\(inner)</\(html)>"
        case .discord:
            let mark = html == "b" ? "**" : html == "i" ? "*" : "~~"
            return inner.isEmpty ? "" : mark + inner + mark
        }
    }

    package static func escape(_ text: String, _ dialect: MarkdownDialect) -> String {
        if dialect == .discord {
            // Mentions need no escape: the request turns them off (`allowed_mentions`).
            guard text.contains(where: { "\\*_~`|<>#[]".contains($0) }) else { return text }
            var output = ""
            for character in text {
                if "\\*_~`|<>#[]".contains(character) { output.append("\\") }
                output.append(character)
            }
            return output
        }
        guard dialect != .plain, text.contains(where: { $0 == "&" || $0 == "<" || $0 == ">" }) else { return text }
        var output = ""
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            default: output.append(character)
            }
        }
        return output
    }

    package static func escapeAttribute(_ text: String) -> String {
        escape(text, .telegramHTML).replacing("\"", with: "&quot;")
    }

    /// Telegram refuses `<a href>` with schemes it does not know; those links stay as `label (url)` text.
    package static func telegramLinkable(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("tg://")
    }

    // MARK: Visible text and cutting

    package static func visibleText(_ block: MarkdownBlock, dialect: MarkdownDialect) -> String {
        switch block {
        case .blank: return ""
        case .rule: return "—"
        case .line(let prefix, let content): return prefix + visibleText(content, dialect: dialect)
        case .heading(let content): return visibleText(content, dialect: dialect)
        case .code(_, let text): return text
        }
    }

    package static func visibleText(_ inlines: [MarkdownInline], dialect: MarkdownDialect) -> String {
        joined(inlines) { visibleText($0, dialect: dialect) }
    }

    package static func visibleText(_ inline: MarkdownInline, dialect: MarkdownDialect) -> String {
        switch inline {
        case .text(let text), .code(let text): return text
        case .strong(let content), .emphasis(let content), .strike(let content): return visibleText(content, dialect: dialect)
        case .link(let label, let url):
            let labelText = visibleText(label, dialect: dialect)
            if labelText.isEmpty { return url }
            if url.isEmpty || labelText == url { return labelText }
            switch dialect {
            case .plain: return "\(labelText) (\(url))"
            case .slack: return labelText
            case .telegramHTML, .pushoverHTML, .discord: return telegramLinkable(url) ? labelText : "\(labelText) (\(url))"
            }
        }
    }

    /// Keeps whole blocks while they fit, cuts the first one that does not, and ends with `…`.
    package static func fit(_ blocks: [MarkdownBlock], dialect: MarkdownDialect, limit: Int, measure: TextMeasure) -> [MarkdownBlock] {
        guard measure.count(visibleText(blocks, dialect: dialect)) > limit else { return blocks }
        let ellipsis = "…"
        var budget = limit - measure.count(ellipsis)
        guard budget >= 0 else { return [] }
        var result: [MarkdownBlock] = []
        for block in blocks {
            let separator = result.isEmpty ? 0 : 1
            let cost = measure.count(visibleText(block, dialect: dialect))
            if separator + cost <= budget {
                result.append(block)
                budget -= separator + cost
                continue
            }
            if budget - separator > 0, let partial = cut(block, budget: budget - separator, dialect: dialect, measure: measure) {
                result.append(partial)
                return result
            }
            break
        }
        while result.last == .blank { result.removeLast() }
        guard let last = result.popLast() else { return [.line(prefix: "", content: [.text(ellipsis)])] }
        return result + [appendingEllipsis(last)]
    }

    /// The part of `block` that fits in `budget`, ending with `…`; nil when nothing useful fits.
    package static func cut(_ block: MarkdownBlock, budget: Int, dialect: MarkdownDialect, measure: TextMeasure) -> MarkdownBlock? {
        switch block {
        case .blank, .rule: return nil
        case .code(let language, let text):
            let kept = measure.prefix(text, fitting: budget)
            return kept.isEmpty ? nil : .code(language: language, text: kept + "…")
        case .heading(let content):
            let kept = cut(content, budget: budget, dialect: dialect, measure: measure)
            return kept.isEmpty ? nil : .heading(kept + [.text("…")])
        case .line(let prefix, let content):
            let prefixCost = measure.count(prefix)
            guard prefixCost < budget else { return nil }
            let kept = cut(content, budget: budget - prefixCost, dialect: dialect, measure: measure)
            return kept.isEmpty ? nil : .line(prefix: prefix, content: kept + [.text("…")])
        }
    }

    package static func cut(_ inlines: [MarkdownInline], budget: Int, dialect: MarkdownDialect, measure: TextMeasure) -> [MarkdownInline] {
        var remaining = budget
        var kept: [MarkdownInline] = []
        for inline in inlines {
            let cost = measure.count(visibleText(inline, dialect: dialect))
            if cost <= remaining {
                kept.append(inline)
                remaining -= cost
                continue
            }
            switch inline {
            case .text(let text):
                let part = measure.prefix(text, fitting: remaining)
                if !part.isEmpty { kept.append(.text(part)) }
            case .code(let text):
                let part = measure.prefix(text, fitting: remaining)
                if !part.isEmpty { kept.append(.code(part)) }
            case .strong(let content):
                let part = cut(content, budget: remaining, dialect: dialect, measure: measure)
                if !part.isEmpty { kept.append(.strong(part)) }
            case .emphasis(let content):
                let part = cut(content, budget: remaining, dialect: dialect, measure: measure)
                if !part.isEmpty { kept.append(.emphasis(part)) }
            case .strike(let content):
                let part = cut(content, budget: remaining, dialect: dialect, measure: measure)
                if !part.isEmpty { kept.append(.strike(part)) }
            case .link:
                // A link cut short loses its target: keep the visible words as text.
                let part = measure.prefix(visibleText(inline, dialect: dialect), fitting: remaining)
                if !part.isEmpty { kept.append(.text(part)) }
            }
            break
        }
        return kept
    }

    package static func appendingEllipsis(_ block: MarkdownBlock) -> MarkdownBlock {
        switch block {
        case .line(let prefix, let content): return .line(prefix: prefix, content: content + [.text("…")])
        case .heading(let content): return .heading(content + [.text("…")])
        case .code(let language, let text): return .code(language: language, text: text + "…")
        case .rule, .blank: return .line(prefix: "", content: [.text("…")])
        }
    }

    /// Cuts raw Markdown (for targets that render it themselves: Discord, ntfy with `markdown: true`) to
    /// `limit`, closing a code fence or inline code span the cut left open so the rest does not turn into code.
    package static func cutRaw(_ text: String, limit: Int, measure: TextMeasure) -> String {
        guard measure.count(text) > limit else { return text }
        // Room for `…` and a closing "\n```".
        let reserve = measure.count("…\n```")
        var kept = measure.prefix(text, fitting: max(0, limit - reserve))
        var openFence: String?
        for line in kept.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop(while: { $0 == " " })
            if let fence = openFence {
                if trimmed.hasPrefix(fence) { openFence = nil }
            } else if trimmed.hasPrefix("```") {
                openFence = "```"
            } else if trimmed.hasPrefix("~~~") {
                openFence = "~~~"
            }
        }
        if let fence = openFence {
            if kept.hasSuffix("\n") { kept.removeLast() }
            return kept + "…\n" + fence
        }
        let lastLine = kept.split(separator: "\n", omittingEmptySubsequences: false).last ?? ""
        var unescapedTicks = 0
        var previous: Character?
        for character in lastLine {
            if character == "`", previous != "\\" { unescapedTicks += 1 }
            previous = character
        }
        // A trailing lone backslash would escape the ellipsis.
        if kept.hasSuffix("\\") { kept.removeLast() }
        return kept + (unescapedTicks % 2 == 1 ? "…`" : "…")
    }
}
