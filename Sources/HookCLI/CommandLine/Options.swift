/// Typed options. Each command declares its options once, as `Flag` and `Option` values (name, value
/// kind, help); those declarations feed the parser, `--help`, the manual page and shell completion,
/// and the command's `Options` value reads them back by the same constants, so a misspelt option is
/// a compile error, not a lookup that silently finds nothing.

/// What an option declaration gives the parser, the help and completion.
package protocol OptionDescriptor: Sendable {
    var spec: OptionSpec { get }
}

/// Values shell completion offers for an option, where hookctl knows them.
package enum CompletionValues: Sendable {
    case agents, sinks, sessions, states, formats, kinds
}

/// An option without a value: present or not.
package struct Flag: OptionDescriptor {
    package let spec: OptionSpec

    package init(_ name: String, short: Character? = nil, help: String) {
        spec = .flag(name, short: short, help: help)
    }
}

/// An option with a value, read as `Value` (text, a whole number, a duration in seconds).
package struct Option<Value: Sendable>: OptionDescriptor {
    package let spec: OptionSpec
    package let convert: @Sendable (_ name: String, _ text: String) throws -> Value

    package init(spec: OptionSpec, convert: @escaping @Sendable (String, String) throws -> Value) {
        self.spec = spec
        self.convert = convert
    }
}

extension Option where Value == String {
    /// A text option; `completes` names the values completion offers for it.
    package init(_ name: String, _ valueName: String, short: Character? = nil, repeatable: Bool = false,
                completes: CompletionValues? = nil, help: String) {
        var spec = OptionSpec.value(name, valueName, short: short, repeatable: repeatable, help: help)
        spec.completes = completes
        self.init(spec: spec, convert: { _, text in text })
    }
}

extension Option where Value == Int {
    /// A whole number (`--width 60`).
    package static func int(_ name: String, _ valueName: String, help: String) -> Option<Int> {
        Option(spec: .value(name, valueName, help: help), convert: OptionValue.int)
    }

    /// `--width N`, which every table and human listing takes.
    package static func width(help: String = "Fit the output to N columns (default: COLUMNS, the terminal, or 80).") -> Option<Int> {
        .int("width", "N", help: help)
    }
}

extension Option where Value == Double {
    /// A positive duration in seconds (`8`, `8s`, `500ms`).
    package static func seconds(_ name: String, _ valueName: String, help: String) -> Option<Double> {
        Option(spec: .value(name, valueName, help: help), convert: OptionValue.seconds)
    }
}

/// A command's options as one value, decoded once from the parsed command line; every usage check
/// of the command's options happens in `init(parsing:)`, before the command touches anything.
package protocol CommandOptions: Sendable {
    init(parsing arguments: ParsedArguments) throws
}

extension ParsedArguments {
    /// Whether the flag was given.
    package func flag(_ flag: Flag) -> Bool { has(flag.spec.name) }

    /// The option's value (the last one given), converted; nil when absent.
    package func value<Value>(_ option: Option<Value>) throws -> Value? {
        try texts(option.spec.name).last.map { try option.convert(option.spec.name, $0) }
    }

    /// Every value of a repeatable option, in order, converted.
    package func all<Value>(_ option: Option<Value>) throws -> [Value] {
        try texts(option.spec.name).map { try option.convert(option.spec.name, $0) }
    }

    /// A comma-separated list option (`--agents claude,codex`), repeated or not; nil when absent.
    package func list(_ option: Option<String>) -> [String]? {
        guard valueNames.contains(option.spec.name) else { return nil }
        return texts(option.spec.name).flatMap { $0.split(separator: ",").map { Text.trimmed(String($0)) } }.filter { !$0.isEmpty }
    }

    /// `--config PATH`, which every command takes: read once, by the dispatcher, into
    /// `CommandContext.configOverride`.
    package var config: String? { texts(CommandSpec.config.spec.name).last }

    // The only lookups by name: every caller goes through a declaration above.
    private func has(_ name: String) -> Bool { flags.contains(name) }
    /// Every value given for `name`, in order (the parser checks repeats with it; commands read through a declaration).
    package func texts(_ name: String) -> [String] {
        var texts: [String] = []
        for (index, given) in valueNames.enumerated() where given == name { texts.append(valueTexts[index]) }
        return texts
    }
}
