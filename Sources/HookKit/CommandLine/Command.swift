/// Everything a command may touch of the outside world, injected so commands run in-process in tests.
public final class CommandContext: @unchecked Sendable {
    public var environment: [String: String]
    public var standardOutput: OutputStream
    public var standardError: OutputStream
    /// The descriptor commands read their input from (notify's payload, reconcile's records).
    public var standardInput: Int32
    public var workingDirectory: String

    public init(environment: [String: String], standardOutput: OutputStream, standardError: OutputStream,
                standardInput: Int32, workingDirectory: String) {
        self.environment = environment
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.standardInput = standardInput
        self.workingDirectory = workingDirectory
    }

    /// The real process: its environment, file descriptors and working directory.
    public static func process() -> CommandContext {
        let cwd = currentDirectory() ?? "/"
        return CommandContext(environment: processEnvironment(),
                              standardOutput: FileDescriptorStream.standardOutput,
                              standardError: FileDescriptorStream.standardError,
                              standardInput: STDIN_FILENO, workingDirectory: cwd)
    }

    public func paths(_ arguments: ParsedArguments) -> Paths {
        Paths(environment: environment, configOverride: arguments.value("config"))
    }

    public func print(_ text: String) { standardOutput.write(text + "\n") }
    public func printError(_ text: String) { standardError.write("hookctl: error: \(text)\n") }
    public func warn(_ text: String) { standardError.write("hookctl: warning: \(text)\n") }
    public func note(_ text: String) { standardError.write("hookctl: \(text)\n") }

    /// Prints one JSON document on standard output.
    public func printJSON(_ value: JSONValue, pretty: Bool = false) {
        standardOutput.write((pretty ? JSON.serializePretty(value) : JSON.serialize(value)) + "\n")
    }
}

/// A hookctl command: its spec (names, options, help) and what it does.
/// The library returns values and errors; only `run` talks to the context's streams.
public protocol Command: Sendable {
    static var spec: CommandSpec { get }
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode
}

/// The process environment, read straight from `environ` (cheaper than ProcessInfo on the hook path).
public func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var cursor = environ
    while let entry = cursor.pointee {
        let length = strlen(entry)
        let text = UnsafeRawBufferPointer(start: entry, count: length)
        if let equals = text.firstIndex(of: UInt8(ascii: "=")), equals > 0 {
            let key = String(decoding: text[..<equals], as: UTF8.self)
            if result[key] == nil { result[key] = String(decoding: text[(equals + 1)...], as: UTF8.self) }
        }
        cursor += 1
    }
    return result
}
