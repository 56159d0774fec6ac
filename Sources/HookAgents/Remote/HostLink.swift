import Synchronization

/// The link: one long-lived ssh session per host, kept while that host's control master lives, running
/// the remote `hookctl hosts serve` (a line-oriented loop on its standard input and output: no port, no
/// daemon listening there; it exits at end of input, that is when this side or the master goes).
///
/// One local process owns the links (`hookctl hosts link`, one per user, a `Daemon`, started in the
/// background by a `status --hosts` run that found it absent). It listens on `link/sock` in hookctl's
/// runtime folder (0700) (only this user may connect, checked again with SO_PEERCRED).
/// A warm `status --hosts` asks it instead of starting ssh, a shell and hookctl on every host: each host
/// then costs one status computation in a process already running there. A host without a link (not yet
/// up, gone with its master, refused) is answered `down` at once and asked the old way, per call, over
/// its master. What comes back is passed on as bytes (capped): the asker reads it as untrusted, as it
/// reads an ssh answer. The owner logs its start, each link's start and end, and why it stops
/// (`link.log` in the state folder); it stops after `idle` seconds without an ask, each link likewise.
package enum HostLink {
    /// The folder of the owner's socket, beside the control sockets (`<runtime>/link`).
    package static func directory(controlDirectory: String) -> String {
        FileSystem.parentDirectory(of: controlDirectory) + "/link"
    }

    package static func socketPath(_ directory: String) -> String { directory + "/sock" }
    package static func logFile(_ paths: Paths) -> String { paths.stateDirectory + "/link.log" }
    package static func daemon(_ paths: Paths) -> Daemon { Daemon("hosts-link", paths: paths, logFile: logFile(paths)) }

    /// How a host's ask through the link went.
    package enum Answer: Equatable {
        /// The remote status document's bytes (unchecked) and how long the host took.
        case ok([UInt8], latency: Double)
        /// No link to this host now: ask it the old way.
        case down
        /// The host did not answer within the deadline (its link is closed), or its link was busy with another
        /// ask until then (left open): ask it the old way.
        case timeout
        /// Its answer passed the cap.
        case tooLarge
        /// The owner took the connection but gave no (whole) answer for this host in time: ask it the old way.
        case stuck
    }

    /// How long an asker waits for the owner: through a working link the whole answer takes milliseconds
    /// (one socket round trip and one line per host; 8.7 ms measured), so 2 s is far above a loaded
    /// machine's noise, and half the caller's deadline leaves the other half to ask every host over ssh
    /// when the owner is stuck (5 s of 10 for `status --hosts`, 1.5 s of 3 for `--next`).
    package static func askTimeout(_ overall: Double) -> Double { min(2, overall / 2) }

    /// The key a link is kept under: the whole of the host's ssh spec (a host edited in the config is a new link).
    package static func key(_ host: SSHRunner.Host) -> String {
        ([host.name, host.destination] + host.options).joined(separator: "\u{0}")
    }

    // MARK: - the asker's side

    /// Asks the owner for each host's status within `timeout` seconds; nil when no owner listens (none
    /// runs: start one). An owner that takes the connection and then does not answer in time (or stops
    /// halfway) is stuck: the hosts it did not answer are `.stuck`, `stuck` gets a line saying so, and its
    /// socket is removed (only if it is still the one asked), so it stops within 1 s and a later run starts
    /// a new owner (the lock keeps it one) instead of paying this deadline again.
    package static func ask(_ hosts: [SSHRunner.Host], directory: String, timeout: Double, limit: Int,
                    stuck: (String) -> Void = { _ in }) -> [Answer]? {
        let deadline = ContinuousClock.Instant.after(seconds: timeout)
        let path = socketPath(directory)
        let asked = FileSystem.status(path, followSymlinks: false)
        let socket: UnixSocket
        do {
            socket = try UnixSocket.connect(path, timeout: timeout)
        } catch let error as Errno where error.code == EAGAIN {
            // An owner that stopped taking connections, its queue full: stuck as well.
            removeSocket(path, ifStill: asked)
            stuck("the link's owner took no connection within \(formatSeconds(timeout)): its socket is removed so it stops; "
                  + "\(hosts.count) host\(hosts.count == 1 ? "" : "s") asked over ssh instead")
            return Array(repeating: .stuck, count: hosts.count)
        } catch {
            return nil
        }
        defer { socket.close() }
        let request = JSONValue.object(JSONObject([
            // The owner answers a slow host `timeout` before this side gives up on the owner.
            ("timeout", .double(max(0.05, timeout - min(0.25, timeout / 4)))),
            ("hosts", .array(hosts.map { host in
                .object(JSONObject([("name", .string(host.name)), ("ssh", .string(host.destination)),
                                    ("options", .array(host.options.map(JSONValue.string)))]))
            })),
        ]))
        var answers: [Answer] = []
        func giveUp(_ what: String) -> [Answer] {
            let owner = socket.peerProcess.map { " (pid \($0))" } ?? ""
            removeSocket(path, ifStill: asked)
            stuck("the link's owner\(owner) \(what) within \(formatSeconds(timeout)): its socket is removed so it stops; "
                  + "\(hosts.count - answers.count) host\(hosts.count - answers.count == 1 ? "" : "s") asked over ssh instead")
            return answers + Array(repeating: .stuck, count: hosts.count - answers.count)
        }
        guard (try? socket.writeAll(Array((JSON.serialize(request) + "\n").utf8))) != nil else { return giveUp("did not take the request") }
        var reader = StreamLines(socket)
        for _ in hosts {
            guard let header = reader.line(limit: 4096, until: deadline) else {
                return giveUp(answers.isEmpty ? "did not answer" : "stopped answering")
            }
            guard let json = try? JSON.parse(header), let state = json["state"]?.stringValue else { return giveUp("answered garbage") }
            switch state {
            case "ok":
                guard let count = json["bytes"]?.intValue, count >= 0, count <= limit else { return giveUp("answered garbage") }
                guard let bytes = reader.bytes(count, until: deadline) else { return giveUp("stopped answering") }
                answers.append(.ok(bytes, latency: json["latency"]?.doubleValue ?? 0))
            case "timeout": answers.append(.timeout)
            case "too_large": answers.append(.tooLarge)
            default: answers.append(.down)
            }
        }
        return answers
    }

    /// Removes a stuck owner's socket (so it stops within 1 s), only when it is still the one asked, not one a new owner made since.
    package static func removeSocket(_ path: String, ifStill asked: stat?) {
        if let asked, let now = FileSystem.status(path, followSymlinks: false), now.st_ino == asked.st_ino, now.st_dev == asked.st_dev {
            unlink(path)
        }
    }

    /// Starts the owner in the background unless one runs (or background processes are off).
    /// `hosts`: the ones that just answered over ssh (their masters are up): linked at once.
    package static func start(environment: [String: String], hosts: [String]) {
        daemon(Paths(environment: environment)).start(arguments: ["hosts", "link"] + hosts, environment: environment,
                                                      offSwitches: ["HOOKCTL_NO_LINK"])
    }

    // MARK: - the remote side

    /// `hookctl hosts serve`: one answer line for each request line, until the end of input.
    package static func serve(input: FileDescriptor, output: FileDescriptor, status: () -> [UInt8]) {
        var reader = StreamLines(input)
        while let line = reader.line(limit: 4096, until: nil) {
            let request = Text.trimmed(String(decoding: line, as: UTF8.self))
            let answer: [UInt8]
            switch request {
            case "status": answer = status()
            case "": continue
            default: answer = Array(#"{"error":"unknown request"}"#.utf8) + [0x0a]
            }
            guard (try? output.writeAll(answer.last == 0x0a ? answer : answer + [0x0a])) != nil else { return }
        }
    }

    // MARK: - the owner

    /// One host's link: the ssh child running `hosts serve` there, asked one request at a time.
    package final class Link: Sendable {
        package let host: SSHRunner.Host
        package let state: Mutex<(child: Subprocess.Child?, reader: StreamLines?, lastAsk: ContinuousClock.Instant)>
        package init(host: SSHRunner.Host) {
            self.host = host
            state = Mutex((nil, nil, .now))
        }
    }

    /// The owner's loop: serves asks on the socket until `idle` seconds pass without one.
    package static func own(runner: SSHRunner, directory: String, paths: Paths, idle: Double, first: [SSHRunner.Host] = []) throws {
        let daemon = daemon(paths)
        guard let lock = daemon.lock() else {
            daemon.log("not started: another owner holds \(daemon.lockFile)")
            return
        }
        defer { lock.unlock() }
        let path = socketPath(directory)
        unlink(path)
        // What an owner killed while it started left (`UnixSocket.listen` binds under `.<pid>.listen`):
        // under the lock no other owner is starting.
        for name in (try? FileSystem.list(directory)) ?? [] where name.hasPrefix(".") && name.hasSuffix(".listen") {
            unlink(directory + "/" + name)
        }
        let listener = try UnixSocket.listen(path)
        defer {
            listener.close()
            unlink(path)
        }
        let owner = Owner(runner: runner, paths: paths)
        log(paths, "started (socket \(path); a link stops after \(Int(idle)) s without an ask)")
        for host in first { _ = owner.ask(host, deadline: .now) }
        let reason: String
        while true {
            if let connection = listener.accept(timeout: 1) {
                owner.touched()
                Parallel.detach { owner.answer(connection) }
            }
            owner.reap(idle: idle)
            if owner.idleFor >= idle { reason = "no ask for \(Int(idle)) s"; break }
            // Someone removed the socket (a new owner could not take the lock while this one lives, so it is a person).
            if !FileSystem.exists(path) { reason = "its socket was removed"; break }
        }
        owner.closeAll(why: "the owner stops")
        log(paths, "stopped: \(reason)")
    }

    package static func log(_ paths: Paths, _ line: String) { daemon(paths).log(line) }

    /// The links by host, and when each host may be tried again after a link failed.
    package final class Owner: Sendable {
        package let runner: SSHRunner
        package let paths: Paths
        package let links = Mutex<(byKey: [String: Link], retryAt: [String: (ContinuousClock.Instant, Double)], lastAsk: ContinuousClock.Instant)>(([:], [:], .now))

        package init(runner: SSHRunner, paths: Paths) {
            self.runner = runner
            self.paths = paths
        }

        package func touched() { links.withLock { $0.lastAsk = .now } }
        package var idleFor: Double { links.withLock { (ContinuousClock.now - $0.lastAsk).inSeconds } }

        /// One asker: reads its request, asks each host through its link, writes a frame per host.
        package func answer(_ connection: UnixSocket) {
            defer { connection.close() }
            guard connection.peerIsThisUser else { return }
            var reader = StreamLines(connection)
            guard let line = reader.line(limit: 64 << 10, until: .after(seconds: 2)), let request = try? JSON.parse(line),
                  let list = request["hosts"]?.arrayValue else { return }
            let timeout = min(60, max(0.05, request["timeout"]?.doubleValue ?? 10))
            let deadline = ContinuousClock.Instant.after(seconds: timeout)
            var parsed: [SSHRunner.Host] = []
            for item in list {
                guard let name = item["name"]?.stringValue, let destination = item["ssh"]?.stringValue,
                      HostRules.nameProblem(name) == nil, HostRules.destinationProblem(destination) == nil else { return }
                let options = item["options"]?.arrayValue?.compactMap(\.stringValue) ?? []
                guard options.allSatisfy({ HostRules.optionProblem($0) == nil }) else { return }
                parsed.append(SSHRunner.Host(name: name, destination: destination, options: options))
            }
            let hosts = parsed
            let answers = Parallel.map(hosts.count, jobs: hosts.count) { index in self.ask(hosts[index], deadline: deadline) }
            var out: [UInt8] = []
            for answer in answers {
                switch answer {
                case .ok(let bytes, let latency):
                    out += Array((JSON.serialize(.object(JSONObject([("state", .string("ok")), ("latency", .double(latency)),
                                                                      ("bytes", .int(bytes.count))]))) + "\n").utf8) + bytes
                case .down, .stuck: out += Array(#"{"state":"down"}"#.utf8) + [0x0a]
                case .timeout: out += Array(#"{"state":"timeout"}"#.utf8) + [0x0a]
                case .tooLarge: out += Array(#"{"state":"too_large"}"#.utf8) + [0x0a]
                }
            }
            try? connection.writeAll(out)
        }

        /// One host's status through its link; `.down` (and the link started for the next ask) when there is none.
        package func ask(_ host: SSHRunner.Host, deadline: ContinuousClock.Instant) -> Answer {
            let key = HostLink.key(host)
            let link: Link? = links.withLock { links in
                if let link = links.byKey[key] { return link }
                if let (at, _) = links.retryAt[key], ContinuousClock.now < at { return nil }
                let link = Link(host: host)
                links.byKey[key] = link
                Parallel.detach { self.open(link) }
                return nil
            }
            guard let link else { return .down }
            // Another asker's request may hold the link (a slow host, up to its deadline): wait for it only
            // until this ask's own deadline, and a link reached too late is left as it is (it is not out of
            // step), the host answered `timeout` (the asker then tries ssh in what it has left).
            while true {
                if let answer = askThrough(link, host: host, key: key, deadline: deadline) { return answer }
                if ContinuousClock.now >= deadline { return .timeout }
                sleepSeconds(0.002)
            }
        }

        /// One request through `link`, or nil when another asker holds it now.
        private func askThrough(_ link: Link, host: SSHRunner.Host, key: String, deadline: ContinuousClock.Instant) -> Answer? {
            link.state.withLockIfAvailable { state -> Answer in
                guard ContinuousClock.now < deadline else { return .timeout }
                state.lastAsk = .now
                guard let child = state.child, var reader = state.reader, let input = child.input else { return .down }
                let started = ContinuousClock.now
                let result = Self.request(input: input, reader: &reader, limit: runner.answerLimit, deadline: deadline)
                state.reader = reader
                switch result {
                case .ok(let bytes, _): return .ok(bytes, latency: (ContinuousClock.now - started).inSeconds)
                case .down, .timeout, .tooLarge, .stuck:
                    // Out of step with the host (or gone): this link ends; the next ask starts another.
                    // Its ssh is waited for in the background: the asker gets this answer now.
                    close(&state, name: host.name, why: result == .down ? "it ended" : result == .timeout ? "no answer in time" : "an answer over the cap",
                          waitInBackground: true)
                    links.withLock { _ = $0.byKey.removeValue(forKey: key) }
                    return result
                }
            }
        }

        /// Sends `status` and reads one answer line.
        package static func request(input: FileDescriptor, reader: inout StreamLines, limit: Int, deadline: ContinuousClock.Instant) -> Answer {
            guard (try? input.writeAll(Array("status\n".utf8))) != nil else { return .down }
            switch reader.readLine(limit: limit + 1, until: deadline) {
            case .line(let bytes): return .ok(bytes + [0x0a], latency: 0)
            case .tooLong: return .tooLarge
            case .timedOut: return .timeout
            case .ended: return .down
            }
        }

        /// Starts `hosts serve` on the link's host and waits for its first answer (a known, current
        /// hookctl there); else the link is dropped and the host tried again later (30 s, doubling to 10 min).
        package func open(_ link: Link) {
            let key = HostLink.key(link.host)
            var process = Subprocess(executable: runner.ssh, arguments: runner.arguments(link.host, command: RemoteHookctl.serveCommand),
                                     environment: runner.environment, input: [], timeout: 86_400)
            process.outputLimit = runner.answerLimit
            // Started and greeted outside the link's lock: the owner's loop and other askers never wait on a handshake.
            var opened = false
            var why = "ssh could not be started"
            if let child = try? process.spawn(), let input = child.input {
                var reader = StreamLines(child.output)
                // Its standard error is read as it comes, so a chatty host never blocks on a full pipe.
                let errors = child.errors
                Parallel.detach {
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while ((try? errors.read(into: &buffer)) ?? 0) > 0 {}
                    errors.close()
                }
                let first = Self.request(input: input, reader: &reader, limit: runner.answerLimit,
                                         deadline: .after(seconds: Double(runner.connectTimeout) + 5))
                if case .ok(let bytes, _) = first, (try? RemoteHookctl.json(bytes))?["last_seq"] != nil { opened = true }
                why = first == .down ? "it ended (no hookctl there, one too old for 'hosts serve', or ssh failed)"
                    : "its first answer was not a board (\(first == .timeout ? "none in time" : "not one"))"
                link.state.withLock { state in
                    state.child = child
                    state.reader = reader
                    state.lastAsk = .now
                    if !opened { close(&state, name: link.host.name, why: why) }
                }
            } else {
                HostLink.log(paths, "\(link.host.name): link not started: \(why)")
            }
            links.withLock { links in
                if opened {
                    links.retryAt[key] = nil
                } else {
                    links.byKey[key] = nil
                    let wait = min(600, (links.retryAt[key]?.1 ?? 15) * 2)
                    links.retryAt[key] = (.after(seconds: wait), wait)
                }
            }
            if opened { HostLink.log(paths, "\(link.host.name): link up (ssh pid \(link.state.withLock { $0.child?.pid ?? 0 }))") }
        }

        /// Ends the link's ssh (its end of input first: the remote `hosts serve` exits, then ssh).
        package func close(_ state: inout (child: Subprocess.Child?, reader: StreamLines?, lastAsk: ContinuousClock.Instant), name: String, why: String,
                   waitInBackground: Bool = false) {
            guard let child = state.child else { return }
            child.input?.close()
            child.output.close()
            let pid = child.pid
            let end: @Sendable () -> Void = {
                var status: Int32 = 0
                let until = ContinuousClock.Instant.after(seconds: 2)
                while waitpid(pid, &status, WNOHANG) == 0 {
                    if until.hasPassed {
                        kill(-pid, SIGKILL)
                        kill(pid, SIGKILL)
                        waitpid(pid, &status, 0)
                        break
                    }
                    usleep(5000)
                }
            }
            if waitInBackground { Parallel.detach(end) } else { end() }
            state.child = nil
            state.reader = nil
            HostLink.log(paths, "\(name): link closed: \(why)")
        }

        /// Notices links whose ssh ended (the master went: `ssh -O exit`, `hosts remove`, the host
        /// rebooted), and closes the ones not asked for `idle` seconds.
        package func reap(idle: Double) {
            let all = links.withLock { Array($0.byKey) }
            for (key, link) in all {
                // A link in use (an ask, its handshake) is looked at on a later round.
                let ended: String?? = link.state.withLockIfAvailable { state -> String? in
                    guard let child = state.child else { return nil }
                    var status: Int32 = 0
                    if waitpid(child.pid, &status, WNOHANG) == child.pid {
                        child.input?.close()
                        child.output.close()
                        state.child = nil
                        state.reader = nil
                        return "its ssh \(Subprocess.Termination(waitStatus: status)) (the master or the host went)"
                    }
                    if (ContinuousClock.now - state.lastAsk).inSeconds >= idle {
                        close(&state, name: link.host.name, why: "no ask for \(Int(idle)) s")
                        return ""
                    }
                    return nil
                }
                if case .some(.some(let ended)) = ended {
                    if !ended.isEmpty { HostLink.log(paths, "\(link.host.name): link closed: \(ended)") }
                    links.withLock { _ = $0.byKey.removeValue(forKey: key) }
                }
            }
        }

        package func closeAll(why: String) {
            let all = links.withLock { links in
                defer { links.byKey = [:] }
                return Array(links.byKey.values)
            }
            for link in all { link.state.withLock { close(&$0, name: link.host.name, why: why) } }
        }
    }
}

/// Reads lines (and counted bytes) from a descriptor, keeping what it read past the line.
package struct StreamLines: @unchecked Sendable {
    package let fd: FileDescriptor
    package var buffer: [UInt8] = []

    package init(_ fd: FileDescriptor) { self.fd = fd }
    package init(_ socket: UnixSocket) { self.fd = socket.fd }

    package enum Read { case line([UInt8]), tooLong, timedOut, ended }

    /// One line without its `\n`; nil at the end, on a timeout or past `limit`.
    package mutating func line(limit: Int, until deadline: ContinuousClock.Instant?) -> [UInt8]? {
        if case .line(let bytes) = readLine(limit: limit, until: deadline) { return bytes }
        return nil
    }

    package mutating func readLine(limit: Int, until deadline: ContinuousClock.Instant?) -> Read {
        var scanned = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = buffer[scanned...].firstIndex(of: 0x0a) {
                let line = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                return .line(line)
            }
            scanned = buffer.count
            if buffer.count > limit { return .tooLong }
            let count: Int?
            do { count = try fd.read(into: &chunk, until: deadline) } catch { return .ended }
            guard let count else { return .timedOut }
            if count == 0 { return .ended }
            buffer += chunk[0..<count]
        }
    }

    /// Exactly `count` bytes, or nil at the end or on a timeout.
    package mutating func bytes(_ count: Int, until deadline: ContinuousClock.Instant?) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while buffer.count < count {
            guard let got = try? fd.read(into: &chunk, until: deadline), got > 0 else { return nil }
            buffer += chunk[0..<got]
        }
        let bytes = Array(buffer[..<count])
        buffer.removeSubrange(..<count)
        return bytes
    }
}
