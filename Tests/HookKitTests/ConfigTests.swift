import Testing
import TestSupport
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery

@Suite struct ConfigTests {
    func parse(_ text: String, environment: [String: String] = ["HOME": "/home/u"]) throws -> Config {
        try Config.parse(text, path: "/c/config.yaml", environment: environment)
    }

    func error(_ text: String, environment: [String: String] = ["HOME": "/home/u"]) -> ConfigError? {
        do {
            let config = try parse(text, environment: environment)
            _ = try SinkRegistry.makeSinks(config: config)
            return nil
        } catch let error as ConfigError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func fullConfig() throws {
        let config = try parse("""
        version: 1
        defaults:
          gate: MY_GATE
          budget: 1500ms
          timeout: 7s
          retry: {base: 2s, max: 10m, expire: 2h}
          log: {max_size: 2MB, keep: 5}
        sinks:
          - name: phone
            type: relay
            url: https://push.example.com/n/abc
            kinds: [needs_input, failed]
            priority: {failed: high}
          - name: log
            type: file
            path: ~/events.jsonl
        """)
        #expect(config.defaults.gate == "MY_GATE")
        #expect(config.defaults.budget == 1.5)
        #expect(config.defaults.timeout == 7)
        #expect(config.defaults.retry == RetryPolicy(base: 2, max: 600, expire: 7200))
        #expect(config.defaults.logMaxSize == 2 << 20)
        #expect(config.defaults.logKeep == 5)
        let sinks = try SinkRegistry.makeSinks(config: config)
        #expect(sinks.map(\.name) == ["phone", "log"])
        #expect(sinks[0].settings.kinds == [.needsInput, .failed])
        #expect(sinks[0].settings.timeout == 7)
        #expect(sinks[1].settings.kinds == Set(EventKind.allCases))
    }

    @Test func emptyAndMissingConfigs() throws {
        #expect(try parse("").sinks.isEmpty)
        #expect(try parse("version: 1\nsinks: []\n").sinks.isEmpty)
        #expect(try Config.load(path: "/nonexistent/config.yaml", environment: [:]) == nil)
    }

    @Test(arguments: [
        ("version: 1\nsinkz: []\n", "/c/config.yaml:2:1: unknown key 'sinkz' (did you mean 'sinks'?)"),
        ("version: 2\n", "/c/config.yaml:1:10: unsupported config version '2' (this hookctl reads version 1)"),
        ("sinks:\n  - name: a\n    type: relay\n    ulr: https://x/n/y\n",
         "/c/config.yaml:4:5: sink 'a': unknown key 'ulr' for a relay sink (did you mean 'url'?) (its keys: hookctl help sinks)"),
        ("sinks:\n  - name: a\n    type: relya\n", "/c/config.yaml:3:11: sink 'a': unknown sink type 'relya' (did you mean 'relay'?); known types: relay, file, exec, webhook, ntfy, slack, discord, telegram, pushover"),
        ("sinks:\n  - name: a\n    type: relay\n", "/c/config.yaml:2:5: sink 'a': 'url' is required (or 'url_env' / 'url_file' to keep it out of the config)"),
        ("sinks:\n  - name: a\n    type: relay\n    url: ftp://x/y\n", "/c/config.yaml:4:10: sink 'a': 'url' must start with http:// or https://"),
        ("sinks:\n  - name: a\n    type: file\n    path: /x\n    kinds: [done, finished]\n",
         "/c/config.yaml:5:12: sink 'a': unknown event kind 'finished'"),
        ("defaults:\n  budget: soon\n", "/c/config.yaml:2:11: 'defaults.budget' must be a duration such as 500ms, 10s, 5m or 24h, got 'soon'"),
        ("sinks:\n  - name: a\n    type: file\n    path: /x\n  - name: a\n    type: file\n    path: /y\n",
         "/c/config.yaml:5:11: two sinks are named 'a'"),
        ("sinks: [\n", "/c/config.yaml:2:1: invalid YAML: did not find expected node content while parsing a flow node"),
        ("a: 1\na: 2\n", "/c/config.yaml:2:1: invalid YAML: duplicate key 'a'"),
    ])
    func errorsNamePlaceAndFix(text: String, message: String) {
        #expect(error(text)?.description == message)
        #expect(error(text)?.exitCode == .config)
    }

    @Test func secretsFromEnvironmentAndFile() throws {
        let scratch = try TemporaryDirectory("config")
        let directory = scratch.path
        try FileSystem.writeAtomically(directory + "/url", text: "https://push.example.com/n/fromfile\n")
        let environment = ["HOME": directory, "RELAY_URL": "https://push.example.com/n/fromenv"]
        let fromEnv = try SinkRegistry.makeSinks(config: parse("sinks:\n  - {name: a, type: relay, url_env: RELAY_URL}\n", environment: environment))
        #expect(fromEnv[0].endpoint == "https://push.example.com/n/fromenv")
        let fromFile = try SinkRegistry.makeSinks(config: parse("sinks:\n  - {name: a, type: relay, url_file: ~/url}\n", environment: environment))
        #expect(fromFile[0].endpoint == "https://push.example.com/n/fromfile")
        #expect(error("sinks:\n  - {name: a, type: relay, url_env: MISSING}\n", environment: environment)?.message
                == "sink 'a': the environment variable MISSING named by 'url_env' is not set")
        #expect(error("sinks:\n  - {name: a, type: relay, url: 'https://x/n/1', url_env: RELAY_URL}\n", environment: environment)?.message
                == "sink 'a': give only one of 'url', 'url_env'")
    }

    @Test func pathsExpandHomeAndVariables() {
        let environment = ["HOME": "/home/u", "LOGS": "/var/log/me"]
        #expect(expandPath("~/x", environment: environment) == "/home/u/x")
        #expect(expandPath("$LOGS/a.jsonl", environment: environment) == "/var/log/me/a.jsonl")
        #expect(expandPath("${LOGS}/b", environment: environment) == "/var/log/me/b")
        #expect(expandPath("/a/$/b", environment: environment) == "/a/$/b")
        #expect(expandPath("$UNSET/c", environment: environment) == "/c")
    }

    @Test func xdgLayoutAndOverrides() {
        let plain = Paths(environment: ["HOME": "/home/u"])
        #expect(plain.configFile == "/home/u/.config/hookctl/config.yaml")
        #expect(plain.stateDirectory == "/home/u/.local/state/hookctl")
        #expect(plain.dataDirectory == "/home/u/.local/share/hookctl")
        let xdg = Paths(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg", "XDG_STATE_HOME": "relative", "HOOKCTL_CONFIG": "~/h.yaml"])
        #expect(xdg.configDirectory == "/cfg/hookctl")
        #expect(xdg.stateDirectory == "/home/u/.local/state/hookctl")
        #expect(xdg.configFile == "/home/u/h.yaml")
        #expect(Paths(environment: ["HOME": "/home/u"], configOverride: "/etc/x.yaml").configFile == "/etc/x.yaml")
    }

    @Test func yamlPositionsAreByteOffsets() throws {
        let text = "a: é\nsinks:\n  - name: relay\n    url: x\n"
        let root = try #require(try YAML.parse(text))
        let item = try #require(root["sinks"]?.items.first)
        let bytes = Array(text.utf8)
        #expect(String(decoding: bytes[item.startOffset..<item.endOffset], as: UTF8.self).hasPrefix("name: relay"))
        #expect(item.line == 3)
        #expect(item.column == 5)
    }

    @Test func yamlAliasBombIsRefused() {
        var text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        var previous = "a"
        for level in 0..<8 {
            let name = "l\(level)"
            text += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]\n"
            previous = name
        }
        #expect(throws: YAMLError.self) { try YAML.parse(text) }
    }
}
