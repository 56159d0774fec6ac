/// What `hookctl notify` was asked, already taken from the command line.
package struct NotifyRequest: Sendable {
    package var agent: String?
    package var event: String?
    package var title: String?
    package var message: String?
    package var priority: String?
    package var budget: String?
    package var force = false
    /// The payload given as the last argument (Codex `notify`), if any; else stdin is read.
    package var payloadArgument: String?
    /// Options the lenient parser set aside.
    package var ignoredOptions: [String] = []
    package var configOverride: String?

    package init() {}
}

/// What one notify run did, for the command to print and turn into an exit code.
package struct NotifyResult: Sendable {
    package enum Severity: Sendable { case warning, error, note }

    /// The gate was closed: nothing was recorded or sent.
    package var gated = false
    package var event: Event?
    /// A borrowed hook (Grok or Cursor running Claude Code's hooks) whose real caller has hookctl hooks
    /// of its own: that caller's hook pushes, so nothing was recorded or sent. Names the real caller.
    package var duplicateOf: String?
    package var decision: PushDecision = .push
    package var reports: [DeliveryReport] = []
    /// Messages for stderr, in order.
    package var messages: [(Severity, String)] = []
    /// The exit code under `--strict` (0 otherwise).
    package var strictExit: ExitCode = .ok

    package mutating func raise(_ code: ExitCode) {
        // The most serious problem wins: not kept > config > refused > bad input > usage > queued.
        let rank: [ExitCode: Int] = [.ok: 0, .temporaryFailure: 1, .usage: 2, .dataError: 3, .unavailable: 4, .config: 5,
                                     .cannotCreate: 6]
        if rank[code, default: 3] > rank[strictExit, default: 3] { strictExit = code }
    }

    package mutating func warn(_ text: String) { messages.append((.warning, text)) }
    package mutating func error(_ text: String) { messages.append((.error, text)) }
    package mutating func note(_ text: String) { messages.append((.note, text)) }
}

/// The notify pipeline, one step after the other:
///
///     configure → gate → read payload → build event → decide (push or record only)
///       → commit (outbox entries) → wake (the sender, once) → log (event log, lock with a deadline)
///       → deliver (by hand only) → catch up → result
///
/// One deadline, counted from the process start, bounds all of it (stdin, the log lock, the outbox and
/// delivery). The event is in the outbox before it is logged or sent, and the sender is woken once, at
/// one place, right after that commit (`wake` says why there); it takes the entries only when this
/// process lets go of them at exit, after the log append. An agent's hook leaves its entries' fsync to
/// the sender (`OwedSync`, when it takes them: a process killed at any step loses nothing the kernel
/// has); a delivery in the foreground syncs beside its first attempt, a broken config's entry at once.
/// If the log cannot take the event in time it is kept for the log to catch up. A crash at any step
/// leaves something the next notify, `outbox flush` or the sender adopts (`HOOKCTL_FAULT=<step>` kills
/// the process at a step, for tests).
package struct NotifyPipeline {
    package var paths: Paths
    package var environment: [String: String]
    package var workingDirectory: String
    package var standardInput: Int32
    /// When the process started: the budget counts from here.
    package var started: ContinuousClock.Instant = processStartMonotonic()

    /// Time kept back from the budget for committing and logging when stdin is slow.
    package static func reserve(budget: Duration) -> Duration { min(.milliseconds(250), budget * 0.4) }

    /// How long the hook waits for the event log's lock before it delivers first and lets the log
    /// catch up: a quarter of the budget (at least 100 ms). An append holds the lock for about a
    /// millisecond, so fifty hooks at once wait far less; a lock held longer is a long reader (a board
    /// rebuild) or a stopped process, and waiting for it would leave the delivery a sliver of the budget.
    package static func logLockPatience(budget: Duration) -> Duration { max(.milliseconds(100), budget / 4) }

    package func run(_ request: NotifyRequest) -> NotifyResult {
        var result = NotifyResult()
        // A file-size limit (`ulimit -f`) makes a write fail with EFBIG, reported, instead of killing the hook.
        signal(SIGXFSZ, SIG_IGN)

        // configure: a broken config must not lose the event, so its error is kept for later.
        var config: Config?
        var configError: HookctlError?
        do { config = try Config.load(path: paths.configFile, environment: environment) } catch let error as HookctlError {
            configError = error
        } catch {
            configError = SystemError.io(path: paths.configFile, operation: .read, errno: EIO)
        }
        let defaults = config?.defaults ?? Defaults()

        // gate
        guard request.force || !(environment[defaults.gate] ?? "").isEmpty else {
            result.gated = true
            return result
        }

        // options: mistakes are reported, never fatal here: the event is still recorded.
        var priority: Priority?
        var budget = defaults.budget
        var usage = request.ignoredOptions.map { "ignored '\($0)': not an option of notify, or missing its value" }
        if let text = request.priority {
            priority = Priority(rawValue: text)
            if priority == nil { usage.append("--priority must be low, normal or high, got '\(text)'; using the event's own") }
        }
        if let text = request.budget {
            if let seconds = DurationText.parse(text), seconds > 0 { budget = seconds } else {
                usage.append("--budget expects a duration such as 2s or 500ms, got '\(text)'; using \(DurationText.format(budget))")
            }
        }
        let deadline = started + .seconds(clampingSeconds: budget)
        let reserve = Self.reserve(budget: .seconds(clampingSeconds: budget))

        // read payload (bounded by the same deadline, keeping a little for the steps that make it durable)
        let input = readPayload(request, timeLimit: max(.milliseconds(50), deadline - reserve - .now))

        // build event
        var resources = Resources(environment: environment, paths: paths)
        // The agent's manifest, when a step needs it (the event's screen facts, idle reminders), is read once.
        resources.memo = ManifestMemo()
        var pushCaller = PushCaller()
        var presence: TmuxPresence?
        var dialogOnScreen = false
        guard var event = buildEvent(request, input: input, priority: priority, resources: resources, result: &result,
                                     pushCaller: &pushCaller, presence: &presence, dialogOnScreen: &dialogOnScreen)
        else { return result }
        if let name = request.event, !isKnownEvent(name, agent: event.agent, resources: resources) {
            usage.append("--event '\(name)' is not an event hookctl knows (an agent's event name such as Stop or Notification,"
                         + " or a kind: \(EventKind.allCases.map(\.rawValue).joined(separator: ", "))); recorded as '\(event.kind.rawValue)'")
        }
        usage.forEach { result.warn($0) }
        if !usage.isEmpty { result.raise(.usage) }
        if let problem = input.problem {
            result.warn(problem.description + "; the event was still recorded")
            result.raise(.dataError)
        }
        FaultPoint.reach("built")

        // decide: which sinks the event is for (none when it is only recorded).
        let usable: (sinks: [any Sink], broken: [(name: String, problem: String, settings: SinkSettings?)])
            = config.map(SinkRegistry.makeUsableSinks) ?? ([], [])
        let broken = usable.broken
        let engine = DeliveryEngine(usable: usable, outbox: Outbox(paths: paths), defaults: defaults,
                                    answers: AnswerSigner(paths: paths, environment: environment))
        let log = EventLog(paths: paths, maxLogSize: defaults.logMaxSize, keptGenerations: defaults.logKeep)
        // A person running notify by hand means every push; the rules are for agents' repeated hooks.
        var knownBoard: EventLog.BoardRead?  // as decide read it: the append reuses it while it is unchanged
        result.decision = input.byHand ? .push
            : decide(&event, log: log, defaults: defaults, resources: resources, caller: pushCaller, board: &knownBoard)
        // Quiet while present: the user sits at this agent's tmux session now (TmuxPresence).
        if !input.byHand, result.decision == .push, event.kind.pushesByDefault, event.kind != .test,
           TmuxPresence.isPresent(presence, now: event.time, window: defaults.presentWindow) {
            result.decision = .recordOnly(.present)
            event.quietReason = .present
        }
        var targets: [String] = []
        if result.decision == .push {
            if configError != nil {
                targets = [OutboxEntry.anySink]
            } else {
                targets = engine.matchingSinks(for: event).map(\.name) + engine.brokenMatching(event)
            }
        }
        if let configError {
            result.error(configError.description)
            result.raise(configError.exitCode)
        }
        for (name, problem, _) in broken {
            result.warn("sink '\(name)' skipped: \(problem)."
                        + (targets.contains(name) ? " The event is kept for it and goes out once the sink is fixed" : ""))
            result.raise(.config)
        }

        // commit: the event is in the outbox before it is logged or sent. An agent's hook only commits: the
        // sender sends it. A person running notify by hand, or HOOKCTL_NO_BACKGROUND, also tries it at once.
        let background = !input.byHand && configError == nil && environment["HOOKCTL_NO_BACKGROUND"] != "1"
        // replace once answered: the session leaves a question that was pushed; the sinks that can update
        // that push get a follow-up, queued before the event's own pushes (so it goes out first) and sent by
        // the sender. The board as decide read it (the append reuses it).
        var queuedFollowUp = false
        if configError == nil, event.kind != .needsInput, !engine.sinks.isEmpty {
            let key = BoardState.key(for: event)
            let previous = knownBoard.map { $0.file.entry(forKey: key) } ?? log.storedEntry(for: event, keeping: &knownBoard)
            if let followUp = AnsweredPushes.followUp(after: event, previous: previous, option: event.answer?.option) {
                var problems: [String] = []
                queuedFollowUp = !AnsweredPushes.commit(followUp, engine: engine, problems: &problems).isEmpty
                problems.forEach { result.warn($0) }
            }
        }
        var committed: (claimed: [ClaimedEntry], unqueued: [OutboxEntry], failure: String?) = ([], [], nil)
        if !targets.isEmpty {
            // Delivered in the foreground, the commit is synced beside the first attempt; one left to the
            // sender is synced by it (`OwedSync`) when it takes it; one that will not be sent now (a broken
            // config) is synced at once.
            committed = engine.commit(event, sinks: targets, logged: false, syncAtOnce: configError != nil, startAttempt: !background)
            if let failure = committed.failure {
                result.error("not queued: \(failure); sending it now without a copy in the outbox")
                result.raise(.cannotCreate)
            }
        }

        // wake: once, here, whatever comes next (see `wake` for why not earlier, and not after the log).
        wake(committed: queuedFollowUp || !committed.claimed.isEmpty, outbox: engine.outbox, request: request)
        FaultPoint.reach("committed")

        // refine: the dialog's rows as its pane numbers them, read only now that the event is committed (a
        // hook killed during the capture still has its push out, with the payload's options). Decided again
        // on what the screen showed: a dialog already pushed is recorded only, its entries withdrawn.
        if dialogOnScreen, refineFromScreen(&event) {
            let again = decide(&event, log: log, defaults: defaults, resources: resources, caller: pushCaller, board: &knownBoard)
            if result.decision == .push, again != .push {
                committed.claimed.forEach { engine.outbox.complete($0) }
                committed.claimed = []
                committed.unqueued = []
                result.decision = again
            } else if result.decision == .push {
                committed.claimed = committed.claimed.map { claim in
                    var entry = claim.entry
                    entry.event = event
                    return (try? engine.outbox.update(claim, to: entry, sync: false)) ?? claim
                }
                committed.unqueued = committed.unqueued.map { var entry = $0; entry.event = event; return entry }
                event.quietReason = nil
            } else if case .recordOnly(let reason) = result.decision {
                event.quietReason = reason
            }
        }

        // log: with the deadline; what the log cannot take now it catches up on later.
        var logged = true
        // Logged, or kept for the log to catch up: either way no later attempt need keep it again.
        var keptForLog = true
        do {
            let patience = Self.logLockPatience(budget: .seconds(clampingSeconds: budget))
            try log.append(&event, deadline: max(min(deadline - reserve / 2, .now + patience), .now + .milliseconds(10)),
                           knownBoard: knownBoard)
        } catch {
            logged = false
            do {
                try engine.outbox.keepUnlogged(event)
                result.warn("the event log cannot take the event now (\(error)); it is kept and the log catches up later")
                // Kept for the log is a commit too: the sender logs it (one that records only woke none above).
                wake(committed: true, outbox: engine.outbox, request: request)
            } catch let keepError {
                keptForLog = false
                result.error("not recorded in the event log: \(error); and cannot keep it for later: \(keepError)")
                result.raise(.cannotCreate)
            }
        }
        result.event = event
        FaultPoint.reach("logged")

        // deliver: the fresh event, plus a few older due entries, each endpoint at its pace.
        guard configError == nil, result.decision == .push else {
            if configError != nil {
                result.note(committed.claimed.isEmpty ? "the event was recorded but could not be kept for delivery"
                            : "the event was kept in the outbox and will be delivered once the config is fixed")
            }
            committed.claimed.forEach { $0.release() }
            // A question held while the user is present is pushed if they leave before answering it.
            if logged, result.decision == .recordOnly(.present), event.kind == .needsInput {
                do { try PresenceHold.hold(event, paths: paths, configOverride: request.configOverride, environment: environment) } catch {
                    result.warn("cannot hold the question until you leave the keyboard (\(error)); it was recorded, not pushed")
                }
            }
            catchUp(outbox: engine.outbox, log: log, deadline: deadline, logged: logged)
            return result
        }
        var problems: [String] = []
        var fresh = committed.claimed
        if background {
            // The sender takes the entries once they are let go, as they were committed: it finds the event
            // in the log's tail (`DeliveryEngine.keepForLog`), so the hook writes no file a second time. An
            // event kept for the log to catch up is marked, so the sender does not keep it twice.
            for claim in fresh {
                var entry = claim.entry
                entry.logged = true
                (!logged && keptForLog ? try? engine.outbox.update(claim, to: entry, sync: false) : nil)?.releaseAtExit()
                claim.releaseAtExit()
            }
            fresh = []
        }
        // Only what could not be queued is sent by a hook in the background mode: nothing else would send it.
        if !fresh.isEmpty || !committed.unqueued.isEmpty {
            result.reports = engine.deliver(fresh: fresh, unqueued: committed.unqueued, logged: keptForLog, deadline: deadline,
                                            problems: &problems)
        }
        problems.forEach { result.warn($0) }
        FaultPoint.reach("delivered")
        report(&result, engine: engine, targets: targets, broken: Set(broken.map(\.name)), unqueued: Set(committed.unqueued.map(\.sink)),
               byHand: input.byHand)
        if !background { catchUp(outbox: engine.outbox, log: log, deadline: deadline, logged: logged) }
        return result
    }

    /// decide: one push per reason (`PushPolicy`), on the session as the board has it now. Read without
    /// the log's lock, since the event is committed before it is logged: two identical events from
    /// concurrent hooks may both push, never none.
    private func decide(_ event: inout Event, log: EventLog, defaults: Defaults, resources: Resources,
                        caller: PushCaller, board: inout EventLog.BoardRead?) -> PushDecision {
        guard event.kind.pushesByDefault, event.kind != .test else { return .push }
        // The agent's manifest: events the user caused at the terminal, and turns reported twice.
        if let decision = AgentPushFacts.decide(event, paths: paths, environment: environment) {
            if case .recordOnly(let reason) = decision { event.quietReason = reason }
            return decision
        }
        let previous = log.storedEntry(for: event, keeping: &board)
        // The manifests are read only when an idle reminder could matter (a wait reported again).
        let idleReminders = (previous?.state.isAtPrompt == true || previous?.state == .needsInput) && event.kind == .needsInput
            ? PushPolicy.idleReminders(agent: event.agent, resources: resources) : []
        let decision = PushPolicy.decide(event, history: previous?.pushHistory ?? PushHistory(),
                                         rules: defaults.pushRules, idleReminders: idleReminders, caller: caller)
        if case .recordOnly(let reason) = decision { event.quietReason = reason }
        return decision
    }

    /// wake: the one place notify starts the sender (postfix's `pickup` waking `qmgr`), unless one runs
    /// (inotify then wakes it: the commit renames entries into the outbox, and letting go of them at exit
    /// closes them). Asked for when this run committed entries, or when something already waits (an event
    /// for the log, an entry a killed hook or a by-hand run left): whether anything waits is read up to the
    /// first name only, so a backlog costs the hook nothing.
    ///
    /// Why right after the commit, and not after the log append: an agent kills its hook at its timeout,
    /// and the append can wait a quarter of the budget for the log's lock; a hook killed there still has
    /// its push out (started before the commit, a sender could end between its look and the commit, and
    /// miss the entries). Nothing goes out before the log has the event all the same: the entries stay
    /// locked until this process exits, and the sender takes none a hook holds. Not before reading the
    /// payload, as it once was so that a sender started cold loads libcurl meanwhile: that saved 3–4 ms
    /// on the first push after a quiet spell (`bench/delivery/e2e_side_by_side.py`, 2026-12-06, loaded
    /// machine: cold 1.13x–1.17x without it, warm unchanged), but needed a second probe after the commit
    /// for the sender that ends in between, and a third start for what the log step leaves. An event the
    /// log could not take after this point is kept under `outbox/unlogged/`, a commit of its own, which
    /// wakes the sender the same way (`LogCatchUp`).
    private func wake(committed: Bool, outbox: Outbox, request: NotifyRequest) {
        guard committed || outbox.hasUnlogged() || outbox.hasPending() else { return }
        BackgroundFlusher.start(paths: paths, configOverride: request.configOverride, environment: environment)
    }

    /// catch up: a few events the log could not take earlier, while time is left (a hook that pushed in
    /// the background leaves them to the sender it woke).
    private func catchUp(outbox: Outbox, log: EventLog, deadline: ContinuousClock.Instant, logged: Bool) {
        guard logged, outbox.hasUnlogged() else { return }
        var problems: [String] = []
        LogCatchUp.run(outbox: outbox, log: log, deadline: min(deadline, .now + .milliseconds(50)), limit: LogCatchUp.perHook,
                       problems: &problems)
    }

    /// result: one line per sink that did not take the event, and never "sent" when none did.
    private func report(_ result: inout NotifyResult, engine: DeliveryEngine, targets: [String], broken: Set<String>,
                        unqueued: Set<String>, byHand: Bool) {
        guard let event = result.event else { return }
        // Worked out only when a line is written (an agent's hook, which only commits, writes none).
        lazy var secrets = engine.sinks.flatMap(\.secrets)
        for report in result.reports where report.eventID == event.id {
            if broken.contains(report.sink) { continue }
            switch report.outcome {
            case .delivered: continue
            case .retry:
                if unqueued.contains(report.sink) {
                    result.error(Text.scrub("sink '\(report.sink)': \(report.outcome.summary(retried: false)); the event could not be queued", secrets: secrets))
                    result.raise(.cannotCreate)
                } else {
                    result.warn(Text.scrub("sink '\(report.sink)': \(report.outcome.summary()); queued in the outbox", secrets: secrets))
                    result.raise(.temporaryFailure)
                }
            case .failed, .gone:
                result.error(Text.scrub("sink '\(report.sink)': \(report.outcome.summary())", secrets: secrets))
                result.raise(.unavailable)
            }
        }
        if byHand {
            let delivered = result.reports.filter { $0.eventID == event.id && $0.outcome == .delivered }.map(\.sink)
            if targets.isEmpty {
                result.warn("no sink takes '\(event.kind.rawValue)' events: the event was recorded, not sent")
            } else if delivered.isEmpty {
                result.note("not sent yet: no sink took the event")
            } else {
                result.note("sent to \(delivered.joined(separator: ", "))")
            }
        }
    }

    // MARK: Steps' helpers

    package struct Input {
        package var payload: JSONValue?
        package var raw: [UInt8]
        package var problem: EventError?
        /// No payload and no --agent, or words instead of JSON: a person ran notify by hand.
        package var byHand: Bool
    }

    /// The payload: the last argument (Codex notify), else stdin, bounded in size and time. Words that
    /// are not JSON (`notify "deploy finished"`) are the message; anything else that is not a JSON
    /// object is still salvaged for what it says, with the problem reported.
    package func readPayload(_ request: NotifyRequest, timeLimit: Duration) -> Input {
        var problem: EventError?
        var raw: [UInt8]
        var parsed: JSONValue?
        if let argument = request.payloadArgument {
            raw = Array(argument.utf8)
            let trimmed = Text.trimmed(argument)
            if !trimmed.hasPrefix("{") && !trimmed.hasPrefix("[") && !trimmed.hasPrefix("\"") {
                return Input(payload: nil, raw: raw, problem: nil, byHand: true)
            }
        } else {
            let reader = PayloadReader(timeLimit: timeLimit)
            let input = reader.read(fd: standardInput)
            raw = input.bytes
            parsed = input.document
            if input.truncated { problem = .payloadTooLarge(limit: reader.limit) }
        }
        guard !Text.trimmed(String(decoding: raw.prefix(64), as: UTF8.self)).isEmpty || raw.count > 64 else {
            // No payload: by hand, unless a hook named its agent (it then says what the event is).
            return Input(payload: nil, raw: raw, problem: problem, byHand: request.agent == nil)
        }
        do {
            let payload = try parsed ?? JSON.parse(raw)
            if payload.objectValue == nil, problem == nil { problem = .payloadNotObject }
            return Input(payload: payload.objectValue == nil ? nil : payload, raw: raw, problem: problem, byHand: false)
        } catch let error as JSONParseError {
            if problem == nil { problem = .payloadNotJSON(error) }
        } catch {}
        return Input(payload: PayloadParser.salvage(raw), raw: raw, problem: problem, byHand: false)
    }

    /// The event, or nil for a borrowed hook whose real caller pushes on its own (`result.duplicateOf`).
    package func buildEvent(_ request: NotifyRequest, input: Input, priority: Priority?, resources: Resources,
                    result: inout NotifyResult, pushCaller: inout PushCaller, presence: inout TmuxPresence?,
                    dialogOnScreen: inout Bool) -> Event? {
        // Who really ran the hook (Grok and Cursor run Claude Code's hooks), and its payload keys.
        // A person running notify by hand is no agent's hook.
        let caller = input.byHand
            ? HookCaller(agent: request.agent, manifest: nil, payload: input.payload, duplicateOf: nil)
            : HookCaller.resolve(agent: request.agent, payload: input.payload, environment: environment) {
                (try? resources.manifests()) ?? []
            }
        if let duplicate = caller.duplicateOf {
            result.duplicateOf = duplicate
            return nil
        }
        var agent = caller.agent
        var kindName = request.event
        if input.byHand {
            // By hand: it is news for the phone unless told otherwise.
            agent = agent ?? "hookctl"
            kindName = kindName ?? EventKind.done.rawValue
        }
        var message = request.message
        if input.byHand, message == nil, request.payloadArgument != nil {
            message = Text.trimmed(String(decoding: input.raw, as: UTF8.self))
        }
        let located = TmuxContext.locateWithPresence(environment: environment)
        presence = located.presence
        // From a tmux pane: the processes the hook ran under, so `peek`/`reply` can tell it is still the agent;
        // or, run by Codex's app-server daemon, a pane named by an inherited environment (`InheritedPane`),
        // marked before the title is made, so the push's place carries the same `?` as the board's.
        var location = located.location
        let processes: PaneProcesses.Caller? = location == nil ? nil : PaneProcesses.caller(environment: environment)
        if processes?.inheritedEnvironment == true { location?.paneInherited = true }
        var event = PayloadParser.event(
            payload: caller.payload,
            overrides: EventOverrides(agent: agent, event: kindName, title: request.title, message: message, priority: priority),
            host: shortHostName(), tmux: location,
            fallbackCWD: environment["PWD"] ?? workingDirectory)
        if event.tmux != nil { event.process = processes?.processes }
        if input.byHand, request.title == nil, !event.message.isEmpty {
            event.title = Text.truncate(Text.singleLine(event.message), characters: 60)
        }
        if request.event.flatMap(EventKind.init(rawValue:)) == nil {
            caller.refine(&event, priority: priority, keepTitle: request.title != nil)
        }
        // A built-in agent's manifest is read only for a wait (its screen facts); others came with the caller.
        if !input.byHand, let manifest = caller.manifest ?? (event.kind == .needsInput
            ? ((try? resources.manifests(only: event.agent)) ?? []).first(where: { $0.agent == event.agent }) : nil) {
            if manifest.screen.questionLines.isEmpty {
                // A wait the payload reports: its dialog's rows are read from the pane after the commit.
                dialogOnScreen = event.kind == .needsInput && event.tmux != nil
            } else {
                readScreen(&event, facts: manifest.screen, priority: priority, keepTitle: request.title != nil)
            }
            pushCaller.callIsNewTurn = manifest.screen.callIsNewTurn
            pushCaller.nonInteractive = event.kind == .needsInput
                && manifest.screen.callerIsNonInteractive(names: manifest.detect.isEmpty ? [manifest.agent] : manifest.detect)
        }
        if input.problem != nil, event.message.isEmpty, !input.raw.isEmpty, request.message == nil {
            // Not JSON: keep what was sent as the message, so nothing the agent said is lost.
            let text = String(decoding: input.raw.prefix(PayloadParser.messageLimit * 4), as: UTF8.self)
            event.message = Text.truncate(Text.trimmed(text), characters: PayloadParser.messageLimit)
        }
        return event
    }

    /// Whether an agent whose hook carries no payload asks a question: a short look at the pane the hook
    /// ran in (bounded; aider's detached hook, so no agent waits for it). The question decides the kind.
    private func readScreen(_ event: inout Event, facts: ScreenFacts, priority: Priority?, keepTitle: Bool) {
        guard let tmux = event.tmux else { return }
        let asked = ScreenQuestion.waitForQuestion(facts, within: 0.6) {
            ScreenQuestion.capture(tmux, environment: environment)
        }
        guard let asked else { return }
        event.kind = .needsInput
        event.priority = priority ?? EventKind.needsInput.defaultPriority
        event.question = Question(text: Text.truncate(asked, characters: Question.textLimit), fromScreen: true)
        event.message = event.question?.text ?? asked
        if !keepTitle {
            event.title = PayloadParser.defaultTitle(agent: event.agent, kind: .needsInput, detail: event.detail,
                                                     project: event.project?.name, tmux: event.tmux)
        }
    }

    /// The dialog's rows as the screen numbers them (one capture, no wait: the dialog may not be drawn
    /// yet, and the options then stay unnumbered). True when the question changed.
    private func refineFromScreen(_ event: inout Event) -> Bool {
        guard let tmux = event.tmux, let lines = ScreenQuestion.capture(tmux, environment: environment) else { return false }
        FaultPoint.reach("screen-read")
        let before = event.question
        guard let refined = ScreenQuestion.refine(before, message: event.message, screen: lines), refined != before else { return false }
        event.question = refined
        if before.map({ event.message == $0.message }) ?? false { event.message = refined.message }
        return true
    }

    /// An event name hookctl can map: a kind, an event the built-in payload reader knows, or one in a manifest.
    package func isKnownEvent(_ name: String, agent: String, resources: Resources) -> Bool {
        if EventKind(rawValue: name) != nil { return true }
        if PayloadParser.classify(agent: agent, agentEvent: name, object: JSONObject()).0 != .info { return true }
        let manifests = (try? resources.manifests()) ?? []
        return manifests.contains { $0.kind(forEvent: name) != nil }
    }

    package init(
        paths: Paths,
        environment: [String: String],
        workingDirectory: String,
        standardInput: Int32,
        started: ContinuousClock.Instant = processStartMonotonic()
    ) {
        self.paths = paths
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.standardInput = standardInput
        self.started = started
    }
}

/// The instant this process started (from /proc/self/stat), so a budget counts the time spent before
/// `main` too; the current time when that cannot be read.
package func processStartMonotonic() -> ContinuousClock.Instant {
    let now = ContinuousClock.now
    guard let ticks = ProcessStat.read(getpid()).map({ Double($0.start) }) else { return now }
    var boot = timespec()
    clock_gettime(CLOCK_BOOTTIME, &boot)
    let sinceBoot = Double(boot.tv_sec) + Double(boot.tv_nsec) / 1e9
    let age = sinceBoot - ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    guard age >= 0, age < 60 else { return now }
    return now - .seconds(age)
}
