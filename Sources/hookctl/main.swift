import HookCLI

// The executable only hands the command line to the library and exits with what it returns.
// Output is written with write(2), unbuffered, so nothing is lost by skipping the exit handlers
// (OpenSSL's and libcurl's clean-up, which only frees memory the kernel reclaims anyway).
_exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), context: .process()))
