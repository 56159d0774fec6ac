/// What hookctl last saw when delivering to one sink: when, the result, and since when it has been
/// failing. The delivery engine records it after every attempt; `doctor` and `status` show it, so a
/// sink that keeps failing is visible before anyone wonders where the pushes went.
package struct SinkHealth: Sendable, Equatable {
    /// The result of the last attempt, as the delivery engine saw it.
    package enum Result: String, Sendable {
        case delivered
        /// Will be retried (network error, 408, 429, 5xx, exec exit 75).
        case retrying
        /// Refused for good (other 4xx, exec failure) or the endpoint is gone (404/410).
        case failed
    }

    package var sink: String
    /// Wall-clock epoch seconds of the last attempt (for display only; never used for scheduling).
    package var lastAttempt: Double
    package var result: Result
    /// The HTTP status of the last attempt, when there was a response.
    package var httpStatus: Int?
    /// Why the last attempt did not deliver (secrets already scrubbed); nil when it delivered.
    package var error: String?
    /// Wall-clock epoch seconds of the last successful delivery, if any.
    package var lastSuccess: Double?
    /// Attempts that did not deliver since the last one that did.
    package var consecutiveFailures: Int
    /// Wall-clock epoch seconds until which the sender leaves the failing endpoint alone (then one request probes it).
    package var probeAt: Double?

    package init(sink: String, lastAttempt: Double, result: Result, httpStatus: Int? = nil, error: String? = nil,
                lastSuccess: Double? = nil, consecutiveFailures: Int = 0) {
        self.sink = sink
        self.lastAttempt = lastAttempt
        self.result = result
        self.httpStatus = httpStatus
        self.error = error
        self.lastSuccess = lastSuccess
        self.consecutiveFailures = consecutiveFailures
    }

    package var json: JSONValue {
        var object = JSONObject()
        object["sink"] = .string(sink)
        object["last_attempt"] = .double(lastAttempt)
        object["result"] = .string(result.rawValue)
        if let httpStatus { object["http_status"] = .int(httpStatus) }
        if let error { object["error"] = .string(error) }
        if let lastSuccess { object["last_success"] = .double(lastSuccess) }
        object["consecutive_failures"] = .int(consecutiveFailures)
        if let probeAt { object["probe_at"] = .double(probeAt) }
        return .object(object)
    }

    package init?(json: JSONValue) {
        guard let sink = json["sink"]?.stringValue, let lastAttempt = json["last_attempt"]?.doubleValue,
              let result = json["result"]?.stringValue.flatMap(Result.init(rawValue:)) else { return nil }
        self.init(sink: sink, lastAttempt: lastAttempt, result: result, httpStatus: json["http_status"]?.intValue,
                  error: json["error"]?.stringValue, lastSuccess: json["last_success"]?.doubleValue,
                  consecutiveFailures: json["consecutive_failures"]?.intValue ?? 0)
        probeAt = json["probe_at"]?.doubleValue
    }
}

/// The per-sink health records: one small JSON file per sink under the state directory
/// (`sinks/<name>.json`), replaced atomically. Losing one costs only a line in doctor, so it is not synced.
package struct SinkHealthStore: Sendable {
    package var paths: Paths

    package var directory: String { paths.stateDirectory + "/sinks" }

    package func file(for sink: String) -> String {
        // The outbox's file-name rule keeps hostile sink names inside the directory.
        directory + "/" + OutboxNames.safeSink(sink) + ".json"
    }

    /// The last record for a sink, or nil when it was never tried (or its record is unreadable).
    package func load(sink: String) -> SinkHealth? {
        guard let bytes = try? FileSystem.read(file(for: sink), limit: 64 << 10, followSymlinks: false),
              let json = try? JSON.parse(bytes), let health = SinkHealth(json: json), health.sink == sink else { return nil }
        return health
    }

    /// Records the result of one attempt, carrying over the last success and the failure count.
    package func record(sink: String, result: SinkHealth.Result, httpStatus: Int? = nil, error: String? = nil,
                probeAt: Double? = nil, now: Double = WallClock.nowEpoch()) throws {
        let previous = load(sink: sink)
        var health = SinkHealth(sink: sink, lastAttempt: now, result: result, httpStatus: httpStatus,
                                error: result == .delivered ? nil : error, lastSuccess: previous?.lastSuccess,
                                consecutiveFailures: 0)
        health.probeAt = probeAt
        if result == .delivered {
            health.lastSuccess = now
        } else {
            health.consecutiveFailures = (previous?.consecutiveFailures ?? 0) + 1
        }
        if FileSystem.isSymlink(directory) { throw SystemError.symlink(path: directory) }
        try FileSystem.makeDirectories(directory)
        try FileSystem.writeAtomically(file(for: sink), text: JSON.serialize(health.json) + "\n", mode: 0o600, sync: false,
                                       followSymlinks: false)
    }

    package init(paths: Paths) {
        self.paths = paths
    }
}
