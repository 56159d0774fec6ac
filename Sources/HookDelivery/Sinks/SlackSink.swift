/// A Slack incoming webhook (api.slack.com incoming webhooks; errors per api.slack.com/changelog/2016-05-17): `POST {"text": …}` in Slack's mrkdwn (converted from
/// Markdown, `& < >` escaped), at most 40 000 characters. The webhook URL is the credential. Slack answers
/// `200 ok`; `404 channel_not_found` / `410 channel_is_archived` (and a deleted webhook) mean the sink is dead.
///
/// Keys: `url` / `url_env` / `url_file` (the incoming webhook URL, a secret).
package struct SlackSink: Sink, SinkType {
    package static let type = "slack"
    package static let keys = SinkKeys.names(of: type)
    /// Slack truncates `text` above this.
    package static let maximumTextCharacters = 40_000

    package let name: String
    package let settings: SinkSettings
    package let url: SinkURL

    package var endpoint: String? { url.text }
    package var secrets: [String] { url.secrets }

    package static func make(_ config: SinkConfig) throws -> any Sink {
        SlackSink(name: config.name, settings: try SinkSettings(config: config), url: try config.url()!)
    }

    /// `*Title*` then the message in mrkdwn, cut on the parsed text so no escape or markup is split.
    package func text(for event: Event) -> String {
        let title = settings.title(for: event, limit: 500)
        let heading = title.isEmpty ? "" : "*\(SinkMarkdown.escape(title, .slack))*\n"
        let blocks = SinkMarkdown.parse(SinkMarkdown.bounded(settings.markdownMessage(for: event), limit: Self.maximumTextCharacters))
        var limit = Self.maximumTextCharacters - heading.count
        var text = SinkMarkdown.render(SinkMarkdown.fit(blocks, dialect: .slack, limit: limit, measure: .characters), as: .slack)
        // The limit counts the markup and escapes too: shrink the visible budget until the whole text fits.
        while text.count > Self.maximumTextCharacters - heading.count, limit > 0 {
            limit -= text.count - (Self.maximumTextCharacters - heading.count)
            text = SinkMarkdown.render(SinkMarkdown.fit(blocks, dialect: .slack, limit: max(0, limit), measure: .characters), as: .slack)
        }
        let combined = heading + text
        return Text.trimmed(combined).isEmpty ? SlackSink.escapeFallback(event) : combined
    }

    package static func escapeFallback(_ event: Event) -> String { SinkMarkdown.escape(SinkText.fallbackText(for: event), .slack) }

    package func delivery(for event: Event, attempt: Int) throws -> Delivery {
        let body = JSON.serialize(.object(JSONObject([("text", .string(text(for: event)))])))
        return .http(HTTPRequest(method: "POST", url: url.text,
                                 headers: [("Content-Type", "application/json"), ("User-Agent", Product.userAgent)],
                                 body: Array(body.utf8), timeout: settings.timeout, connectTimeout: settings.connectTimeout))
    }

    package func outcome(for response: HTTPResponse) -> DeliveryOutcome {
        let code = Text.truncate(Text.scrub(Text.singleLine(response.bodyText), secrets: secrets), characters: 80)
        switch response.status {
        case 404, 410:
            let why = code.isEmpty ? "the webhook no longer exists" : code
            return .gone(.http(response.status, "\(why): the Slack webhook or its channel is gone (create a new incoming webhook)"))
        case 403 where code == "action_prohibited":
            return .failed(.http(403, "action_prohibited: the workspace does not allow this webhook to post"))
        case 403, 401:
            return .failed(.http(response.status, code.isEmpty ? "check the Slack webhook URL" : "\(code): check the Slack webhook URL"))
        default:
            return HTTPClassifier.classify(response, secrets: secrets)
        }
    }
}
