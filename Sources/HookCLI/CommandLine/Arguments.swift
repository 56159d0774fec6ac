/// One option a command accepts.
package struct OptionSpec: Sendable {
    package var name: String            // without the dashes: "notify-url"
    package var short: Character?
    package var valueName: String?      // nil: a flag
    package var repeatable: Bool
    package var help: String
    /// What completion offers for the value.
    package var completes: CompletionValues?

    package static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, repeatable: false, help: help)
    }

    package static func value(_ name: String, _ valueName: String, short: Character? = nil, repeatable: Bool = false, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: valueName, repeatable: repeatable, help: help)
    }
}

/// What a command is called, what it does, and what it accepts: the source of both parsing and `--help`.
package struct CommandSpec: Sendable {
    package var path: [String]          // ["session", "ensure"]
    package var summary: String
    package var usage: String           // "[--id UUID | --name NAME] [--json]"
    package var discussion: String
    package var options: [OptionSpec]
    package var positionals: [(name: String, help: String)]
    /// The most positionals accepted; `Int.max` for any number.
    package var maximumPositionals: Int
    /// Unknown options and missing values are set aside in `ParsedArguments.ignored` instead of failing:
    /// for `notify`, where a newer hook script calling an older binary must still record its event.
    package var lenient = false

    package init(path: [String], summary: String, usage: String = "", discussion: String = "",
                options: [any OptionDescriptor] = [], positionals: [(name: String, help: String)] = [],
                maximumPositionals: Int? = nil) {
        self.path = path
        self.summary = summary
        self.usage = usage
        self.discussion = discussion
        self.options = options.map(\.spec)
        self.positionals = positionals
        self.maximumPositionals = maximumPositionals ?? positionals.count
    }

    package var fullName: String { path.joined(separator: " ") }

    /// Options every command takes.
    package static let help = Flag("help", short: "h", help: "Show this help.")
    package static let config = Option<String>("config", "PATH", help: "Use this config file instead of the default (also HOOKCTL_CONFIG).")
    package static let commonOptions: [OptionSpec] = [help.spec, config.spec]

    package var allOptions: [OptionSpec] { options + CommandSpec.commonOptions }
}

/// The parsed command line of one command: flags, option values and positionals.
package struct ParsedArguments: Sendable, Equatable {
    /// The flags given, each once.
    package var flags: [String] = []
    /// Each value given, in order, beside the name of its option (`valueNames[i]` gave `valueTexts[i]`).
    /// String arrays rather than a set and a dictionary: a hook's command line makes no new types for them
    /// (each costs the runtime ~10 K instructions to set up the first time).
    package var valueNames: [String] = []
    package var valueTexts: [String] = []
    package var positionals: [String] = []
    /// What a lenient command set aside (unknown options, options without their value).
    package var ignored: [String] = []
}

/// How an option's text becomes its value; each failure names the option as the user typed it.
package enum OptionValue {
    package static func int(_ name: String, _ text: String) throws -> Int {
        guard let number = Int(text) else { throw UsageError(message: "--\(name) expects a whole number, got '\(text)'") }
        return number
    }

    package static func seconds(_ name: String, _ text: String) throws -> Double {
        guard let number = DurationText.parse(text), number > 0 else {
            throw UsageError(message: "--\(name) expects a duration such as 8, 8s or 500ms, got '\(text)'")
        }
        return number
    }
}

package enum ArgumentParser {
    /// Parses the arguments that follow the command's name; a pure function, tested in-process.
    package static func parse(_ arguments: [String], spec: CommandSpec) throws -> ParsedArguments {
        var result = ParsedArguments()
        let options = spec.allOptions
        var index = 0
        var onlyPositionals = false
        func fail(_ message: String) -> UsageError { UsageError(message: message, command: spec.path) }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                result.positionals.append(argument)
                continue
            }
            if argument == "--" { onlyPositionals = true; continue }
            var name: String
            var inlineValue: String?
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                if let equals = body.firstIndex(of: "=") {
                    name = String(body[..<equals])
                    inlineValue = String(body[body.index(after: equals)...])
                } else {
                    name = String(body)
                }
            } else {
                let letters = Array(argument.dropFirst())
                guard letters.count == 1, let option = options.first(where: { $0.short == letters[0] }) else {
                    // A lone negative number or JSON-ish payload is a positional; anything else is an unknown option.
                    if Double(argument) != nil { result.positionals.append(argument); continue }
                    if spec.lenient { result.ignored.append(argument); continue }
                    throw fail("unknown option '\(argument)'")
                }
                name = option.name
            }
            guard let option = options.first(where: { $0.name == name }) else {
                if spec.lenient { result.ignored.append(argument); continue }
                if name == "color" {
                    throw fail("--color goes before the command: hookctl --color auto|always|never \(spec.fullName) …")
                }
                let hint = Suggest.closest(to: name, in: options.map(\.name)).map { " (did you mean '--\($0)'?)" } ?? ""
                throw fail("unknown option '--\(name)'" + hint)
            }
            if option.valueName == nil {
                if inlineValue != nil { throw fail("--\(name) does not take a value") }
                if !result.flags.contains(name) { result.flags.append(name) }
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else {
                    if spec.lenient { result.ignored.append(argument); continue }
                    throw fail("--\(name) needs a value (\(option.valueName!))")
                }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable, result.valueNames.contains(name), result.texts(name) != [value] {
                throw fail("--\(name) was given more than once")
            }
            result.valueNames.append(name)
            result.valueTexts.append(value)
        }
        if result.positionals.count > spec.maximumPositionals, spec.lenient {
            // Keep the last (Codex appends the payload last); set the others aside.
            result.ignored += result.positionals.dropLast()
            result.positionals = [result.positionals.last!]
        }
        if result.positionals.count > spec.maximumPositionals {
            let extra = result.positionals[spec.maximumPositionals]
            throw fail("unexpected argument '\(extra)'")
        }
        return result
    }
}
