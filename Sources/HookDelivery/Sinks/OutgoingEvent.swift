extension Event {
    /// The event as sinks see it: title, message and Markdown through `OutgoingText.clean`, and the
    /// other agent-given strings that templates can insert; with its replace id.
    package var outgoing: Event {
        var copy = self
        // From the text as recorded, before it is cleaned (as the board fingerprinted it): a push's tag and
        // the follow-up that cancels it are then the same id whatever control characters the question held.
        copy.replaceID = replaceID ?? AnsweredPushes.replaceID(of: self)
        copy.title = OutgoingText.clean(title)
        copy.message = OutgoingText.clean(message)
        copy.markdown = markdown.map(OutgoingText.clean)
        copy.detail = detail.map(OutgoingText.clean)
        copy.agentEvent = OutgoingText.clean(agentEvent)
        copy.cwd = cwd.map(OutgoingText.clean)
        copy.sessionID = sessionID.map(OutgoingText.clean)
        if var tmux = copy.tmux {
            // The session name stays exact (the relay's sessionRef matches it); tmux never lets it hold controls.
            tmux.windowName = tmux.windowName.map(OutgoingText.clean)
            copy.tmux = tmux
        }
        if var project = copy.project {
            project.name = OutgoingText.clean(project.name)
            project.branch = project.branch.map(OutgoingText.clean)
            copy.project = project
        }
        return copy
    }
}
