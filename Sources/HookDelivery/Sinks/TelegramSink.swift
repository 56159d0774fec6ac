/// A Telegram bot (core.telegram.org/bots/api#sendmessage): `POST {api_url}/bot{TOKEN}/sendMessage` with `{"chat_id", "text",
/// "parse_mode": "HTML", "disable_notification", "link_preview_options"}`. The text is Telegram's HTML
/// subset converted from Markdown (or plain text with `parse_mode: none`), at most 4096 UTF-16 units as
/// Telegram counts them after entity parsing. The token sits in the URL path, so previews and errors
/// show the URL with the token replaced.
///
/// Keys: `token` / `token_env` / `token_file`; `chat_id` (number or `@channel`); `api_url` (default
/// https://api.telegram.org); `parse_mode` (`html`, the default, or `none`); `silent` (kinds sent with
/// `disable_notification`, default `[done]`); `message_thread_id`; `actions` (default false): a
/// `needs_input` message gets an inline keyboard (`reply_markup.inline_keyboard`), one button per offered
/// option (`AnswerSigner.offered`) whose `callback_data` is its answer token (at most 64 bytes), and the
/// answer listener long-polls `getUpdates` for the presses (so the bot must have no webhook set).
package struct TelegramSink: Sink, SinkType {
    package static let type = "telegram"
    package static let keys = SinkKeys.names(of: type)
    package static let maximumText = 4096
    package static let defaultAPI = "https://api.telegram.org"

    package let name: String
    package let settings: SinkSettings
    package let token: String
    package let chatID: String
    package let apiURL: String
    package let html: Bool
    package let silentKinds: Set<EventKind>
    package let threadID: Int?
    /// Answer buttons on `needs_input` messages (the listener reads this bot's updates).
    package var actions = false
    /// Telegram shows many buttons; a dialog's options beyond these are answered in the terminal.
    package static let maximumButtons = 4

    package var endpoint: String? { apiURL }
    /// The whole token and its secret half (after `BOT_ID:`).
    package var secrets: [String] {
        var values = [token]
        if let colon = token.firstIndex(of: ":") { values.append(String(token[token.index(after: colon)...])) }
        return values
    }

    package static func make(_ config: SinkConfig) throws -> any Sink {
        let token = try config.secret("token", required: true)!
        guard !token.isEmpty, token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ":" || $0 == "_" || $0 == "-") }) else {
            throw config.error(config.node["token"] ?? config.node["token_env"] ?? config.node["token_file"],
                               "the Telegram bot token must look like 123456:ABC-DEF… (letters, digits, ':', '_', '-')")
        }
        let chatID = try config.requiredString("chat_id")
        let numeric = chatID.first == "-" ? chatID.dropFirst() : Substring(chatID)
        guard (!numeric.isEmpty && numeric.allSatisfy({ $0.isASCII && $0.isNumber })) || (chatID.hasPrefix("@") && chatID.count > 1) else {
            throw config.error(config.node["chat_id"], "'chat_id' must be a numeric chat id or @channelname, got '\(chatID)'")
        }
        var apiURL = try config.string("api_url").map { try config.checkedURL($0, key: "api_url").text } ?? defaultAPI
        while apiURL.hasSuffix("/") { apiURL.removeLast() }
        let parseMode = (try config.string("parse_mode") ?? "html").lowercased()
        guard parseMode == "html" || parseMode == "none" else {
            throw config.error(config.node["parse_mode"], "'parse_mode' must be html or none, got '\(parseMode)'")
        }
        var sink = TelegramSink(name: config.name, settings: try SinkSettings(config: config), token: token, chatID: chatID,
                                apiURL: apiURL, html: parseMode == "html",
                                silentKinds: try config.eventKinds("silent") ?? [.done],
                                threadID: try config.int("message_thread_id"))
        sink.actions = try config.bool("actions") ?? false
        return sink
    }

    package init(name: String, settings: SinkSettings, token: String, chatID: String, apiURL: String = TelegramSink.defaultAPI,
         html: Bool = true, silentKinds: Set<EventKind> = [.done], threadID: Int? = nil) {
        self.name = name
        self.settings = settings
        self.token = token
        self.chatID = chatID
        self.apiURL = apiURL
        self.html = html
        self.silentKinds = silentKinds
        self.threadID = threadID
    }

    package var requestURL: String { "\(apiURL)/bot\(token)/sendMessage" }
    /// What logs and previews show instead of the URL.
    package var displayURL: String { "\(apiURL)/bot…(redacted)/sendMessage" }

    /// The title in bold, then the message: the visible text (what Telegram counts) stays within 4096 units.
    package func text(for event: Event) -> String {
        let title = settings.title(for: event, limit: 256)
        let titleCost = title.isEmpty ? 0 : title.utf16.count + 1
        let budget = max(1, Self.maximumText - titleCost)
        if html {
            let message = SinkMarkdown.convert(settings.markdownMessage(for: event), to: .telegramHTML, limit: budget, measure: .utf16)
            let heading = title.isEmpty ? "" : "<b>\(SinkMarkdown.escape(title, .telegramHTML))</b>"
            let text = [heading, message].filter { !$0.isEmpty }.joined(separator: "\n")
            return Text.trimmed(text).isEmpty ? SinkMarkdown.escape(SinkText.fallbackText(for: event), .telegramHTML) : text
        }
        let message = TextMeasure.utf16.truncate(settings.message(for: event), to: budget)
        let text = [title, message].filter { !$0.isEmpty }.joined(separator: "\n")
        return Text.trimmed(text).isEmpty ? SinkText.fallbackText(for: event) : text
    }

    package var answerButtons: Int { actions ? Self.maximumButtons : 0 }

    package func delivery(for event: Event, attempt: Int) throws -> Delivery {
        try delivery(for: event, attempt: attempt, answers: [])
    }

    package func delivery(for event: Event, attempt: Int, answers: [AnswerButton]) throws -> Delivery {
        var object = JSONObject()
        let numeric = chatID.first == "-" ? chatID.dropFirst() : Substring(chatID)
        object["chat_id"] = !numeric.isEmpty && numeric.allSatisfy({ $0.isASCII && $0.isNumber }) ? .number(chatID) : .string(chatID)
        if let threadID { object["message_thread_id"] = .int(threadID) }
        object["text"] = .string(text(for: event))
        if html { object["parse_mode"] = .string("HTML") }
        object["disable_notification"] = .bool(silentKinds.contains(event.kind))
        object["link_preview_options"] = .object(JSONObject([("is_disabled", .bool(true))]))
        if actions {
            let buttons = answers.prefix(Self.maximumButtons).map { answer in
                [JSONValue.object(JSONObject([("text", .string(Text.truncate(Text.singleLine((answer.option.n.map { "\($0). " } ?? "") + answer.option.label), characters: 60))),
                                              ("callback_data", .string(answer.token))]))]
            }
            if !buttons.isEmpty {
                object["reply_markup"] = .object(JSONObject([("inline_keyboard", .array(buttons.map { .array($0) }))]))
            }
        }
        return .http(HTTPRequest(method: "POST", url: requestURL,
                                 headers: [("Content-Type", "application/json"), ("User-Agent", Product.userAgent)],
                                 body: Array(JSON.serialize(.object(object)).utf8),
                                 timeout: settings.timeout, connectTimeout: settings.connectTimeout))
    }

    package func preview(for event: Event) -> String {
        do {
            guard case .http(var request) = try outgoingDelivery(for: event, attempt: 1, signer: .preview) else { return "" }
            request.url = displayURL
            return request.redacted(secrets: secrets).replacing(Text.redactURL(displayURL), with: displayURL)
        } catch {
            return "(cannot build the request: \(Text.scrub("\(error)", secrets: secrets)))"
        }
    }

    /// Telegram answers `{"ok":false,"error_code":N,"description":"…","parameters":{"retry_after":S}}`.
    package func outcome(for response: HTTPResponse) -> DeliveryOutcome {
        let body = try? JSON.parse(response.body)
        // Scrubbed before it is cut: a secret across the cut would no longer match whole.
        let description = Text.truncate(Text.scrub(body?["description"]?.stringValue ?? Text.singleLine(response.bodyText),
                                                   secrets: secrets), characters: 160)
        func problem(_ advice: String = "", retryAfter: Double? = nil) -> DeliveryProblem {
            .http(response.status, [description, advice].filter { !$0.isEmpty }.joined(separator: " "), retryAfter: retryAfter)
        }
        switch response.status {
        case 200..<300:
            if body?["ok"]?.boolValue == false { return .failed(problem()) }
            return .delivered
        case 400 where description.contains("message is not modified"):
            // An edit to the text the message already shows (an answered update sent twice): done.
            return .delivered
        case 429:
            let hint = body?["parameters"]?["retry_after"]?.doubleValue ?? response.retryAfter
            return .retry(problem(retryAfter: RetryHint.clamp(hint)))
        case 400 where body?["parameters"]?["migrate_to_chat_id"] != nil:
            let newID = body?["parameters"]?["migrate_to_chat_id"]?.scalarText ?? "?"
            return .failed(problem("(the group became a supergroup: set chat_id to \(newID))"))
        case 401, 404:
            // Telegram answers 404 for a token it does not know: the bot is gone or the token was revoked.
            return .gone(problem("(the bot token is not valid: check token / token_env / token_file)"))
        case 403:
            return .gone(problem("(the bot cannot post to this chat: add it back or update chat_id)"))
        default:
            // Network errors, 5xx, other 4xx: the standard reading, with Telegram's description.
            let standard = HTTPClassifier.classify(response, secrets: secrets)
            return response.status == 0 ? standard : standard.with { $0.detail = description }
        }
    }
}

/// Replace once answered (`AnsweredPushes`): the question's message is edited (`editMessageText`, by the
/// `message_id` its `sendMessage` answered, kept as the push's receipt) to its title and "answered: Yes".
/// Without a receipt (the question never went out) nothing is sent.
extension TelegramSink {
    package var canReplace: Bool { true }

    /// `{"ok":true,"result":{"message_id":N,…}}`.
    package func receipt(for response: HTTPResponse) -> String? {
        guard let id = (try? JSON.parse(response.body))?["result"]?["message_id"]?.intValue else { return nil }
        return String(id)
    }

    package func answeredDelivery(for followUp: Event, receipt: String?) throws -> Delivery? {
        guard let receipt, let messageID = Int(receipt) else { return nil }
        var object = JSONObject()
        let numeric = chatID.first == "-" ? chatID.dropFirst() : Substring(chatID)
        object["chat_id"] = !numeric.isEmpty && numeric.allSatisfy({ $0.isASCII && $0.isNumber }) ? .number(chatID) : .string(chatID)
        object["message_id"] = .int(messageID)
        let title = Text.truncate(followUp.title, characters: 256)
        let words = "✅ " + followUp.message
        object["text"] = .string(html ? [title.isEmpty ? "" : "<b>\(SinkMarkdown.escape(title, .telegramHTML))</b>",
                                         SinkMarkdown.escape(words, .telegramHTML)].filter { !$0.isEmpty }.joined(separator: "\n")
                                      : [title, words].filter { !$0.isEmpty }.joined(separator: "\n"))
        if html { object["parse_mode"] = .string("HTML") }
        return .http(HTTPRequest(method: "POST", url: "\(apiURL)/bot\(token)/editMessageText",
                                 headers: [("Content-Type", "application/json"), ("User-Agent", Product.userAgent)],
                                 body: Array(JSON.serialize(.object(object)).utf8),
                                 timeout: settings.timeout, connectTimeout: settings.connectTimeout))
    }
}
