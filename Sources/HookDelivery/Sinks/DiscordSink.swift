/// A Discord webhook (discord-api-docs resources/webhook.mdx, topics/rate-limits.md): `POST {url}?wait=true` with `{"content", "username", "avatar_url",
/// "allowed_mentions": {"parse": []}, "flags"}`. Discord renders Markdown itself, so the message goes as
/// written, at most 2000 characters, and agent output can never ping anyone. A 429 carries `retry_after`
/// (float seconds) in its body; a 404 means the webhook was deleted and must not be used again.
///
/// Keys: `url` / `url_env` / `url_file` (the webhook URL, a secret); `username` (default hookctl; empty keeps
/// the webhook's own); `avatar_url`; `silent` (kinds sent without a push, default `[done]`); `thread_id`.
package struct DiscordSink: Sink, SinkType {
    package static let type = "discord"
    package static let keys = SinkKeys.names(of: type)
    /// Discord refuses longer `content`; counted in UTF-16 units, which is never less than Discord's count.
    package static let maximumContent = 2000
    /// `SUPPRESS_NOTIFICATIONS`: the message arrives without a push.
    package static let suppressNotificationsFlag = 1 << 12

    package let name: String
    package let settings: SinkSettings
    package let url: SinkURL
    package let username: String?
    package let avatarURL: String?
    /// Kinds sent without a push notification (by default `done`: a finished turn need not buzz).
    package let silentKinds: Set<EventKind>
    package let threadID: String?

    package var endpoint: String? { url.text }
    package var secrets: [String] { url.secrets }

    package static func make(_ config: SinkConfig) throws -> any Sink {
        let url = try config.url()!
        let silent = try config.eventKinds("silent") ?? [.done]
        let threadID = try config.string("thread_id")
        if let threadID, !threadID.allSatisfy({ $0.isASCII && $0.isNumber }) {
            throw config.error(config.node["thread_id"], "'thread_id' must be the numeric id of a thread")
        }
        return DiscordSink(name: config.name, settings: try SinkSettings(config: config), url: url,
                           username: try config.string("username") ?? "hookctl", avatarURL: try config.string("avatar_url"),
                           silentKinds: silent, threadID: threadID)
    }

    package init(name: String, settings: SinkSettings, url: SinkURL, username: String? = "hookctl", avatarURL: String? = nil,
         silentKinds: Set<EventKind> = [.done], threadID: String? = nil) {
        self.name = name
        self.settings = settings
        self.url = url
        self.username = username
        self.avatarURL = avatarURL
        self.silentKinds = silentKinds
        self.threadID = threadID
    }

    /// `**Title**` then the message written back as Discord Markdown from the parsed tree, within 2000
    /// units: cut on the tree, so no markup is split, and raw HTML or mentions in agent text stay text.
    package func content(for event: Event) -> String {
        let title = Self.escapeMarkdown(settings.title(for: event, limit: 256))
        let heading = title.isEmpty ? "" : "**\(title)**\n"
        let budget = Self.maximumContent - heading.utf16.count
        let blocks = SinkMarkdown.parse(SinkMarkdown.bounded(settings.markdownMessage(for: event), limit: budget))
        var limit = budget
        var text = SinkMarkdown.render(SinkMarkdown.fit(blocks, dialect: .discord, limit: limit, measure: .utf16), as: .discord)
        // The limit counts markup and escapes too: shrink the visible budget until the whole text fits.
        while text.utf16.count > budget, limit > 0 {
            limit -= text.utf16.count - budget
            text = SinkMarkdown.render(SinkMarkdown.fit(blocks, dialect: .discord, limit: max(0, limit), measure: .utf16), as: .discord)
        }
        let content = heading + text
        return Text.trimmed(content).isEmpty ? Self.escapeMarkdown(SinkText.fallbackText(for: event)) : content
    }

    /// The title is plain text: Markdown characters in it are shown, not interpreted.
    package static func escapeMarkdown(_ text: String) -> String {
        var output = ""
        for character in text {
            if "\\*_~`|".contains(character) { output.append("\\") }
            output.append(character)
        }
        return output
    }

    package var requestURL: String {
        var parameters = ["wait=true"]
        if let threadID { parameters.append("thread_id=\(threadID)") }
        return url.text + (url.text.contains("?") ? "&" : "?") + parameters.joined(separator: "&")
    }

    package func delivery(for event: Event, attempt: Int) throws -> Delivery {
        var object = JSONObject()
        object["content"] = .string(content(for: event))
        if let username, !username.isEmpty { object["username"] = .string(username) }
        if let avatarURL, !avatarURL.isEmpty { object["avatar_url"] = .string(avatarURL) }
        object["allowed_mentions"] = .object(JSONObject([("parse", .array([]))]))
        if silentKinds.contains(event.kind) { object["flags"] = .int(Self.suppressNotificationsFlag) }
        return .http(HTTPRequest(method: "POST", url: requestURL,
                                 headers: [("Content-Type", "application/json"), ("User-Agent", Product.userAgent)],
                                 body: Array(JSON.serialize(.object(object)).utf8),
                                 timeout: settings.timeout, connectTimeout: settings.connectTimeout))
    }

    package func outcome(for response: HTTPResponse) -> DeliveryOutcome {
        switch response.status {
        case 429:
            // The body's float `retry_after` is the most precise hint, then the rate-limit headers.
            let body = try? JSON.parse(response.body)
            let hint = body?["retry_after"]?.doubleValue
                ?? response.header("x-ratelimit-reset-after").flatMap { Double(Text.trimmed($0)) }
                ?? response.retryAfter
            let scope = body?["global"]?.boolValue == true ? " (global)" : ""
            return .retry(.http(429, "rate limited by Discord\(scope)", retryAfter: RetryHint.clamp(hint)))
        case 404:
            return .gone(.http(404, "the Discord webhook was deleted (create a new one and update the sink)"))
        case 401, 403:
            // These count toward Discord's invalid-request ban: never loop on them.
            return .failed(.http(response.status, "Discord refused the webhook token (check the webhook URL)"))
        default:
            return HTTPClassifier.classify(response, secrets: secrets)
        }
    }
}
