/// Whether an event is pushed to the sinks. Every event that passes the gate is recorded in the event
/// log and on the board whatever this says; `recordOnly` keeps it off the phone (an idle reminder after
/// the turn was already reported done, an identical repeat…). The notify pipeline asks this once per
/// event, in its `decide` step, before anything is queued.
public enum PushDecision: Sendable, Equatable {
    case push
    case recordOnly(reason: String)

    /// The rules, in one place. Today every event is pushed to the sinks that take its kind; rules that
    /// need the board (the session's last state) get it through `context`.
    public static func decide(for event: Event, context: PushContext) -> PushDecision {
        .push
    }
}

/// What a push rule may look at besides the event.
public struct PushContext: Sendable {
    public var paths: Paths
    public var config: Config?

    public init(paths: Paths, config: Config?) {
        self.paths = paths
        self.config = config
    }
}
