import HookKit

// The executable only hands the command line to the library and exits with what it returns.
exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), context: .process()))
