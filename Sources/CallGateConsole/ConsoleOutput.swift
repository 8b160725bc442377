/// Where `listen` and `call` write their lines: standard output in the CLI, a buffer in tests.
public typealias ConsoleOutput = @Sendable (String) -> Void
