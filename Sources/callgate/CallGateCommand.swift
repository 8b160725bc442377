import ArgumentParser

/// `callgate`: the gateway and its tools.
@main
struct CallGateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "callgate",
        abstract: "A WebSocket gateway for real-time call events.",
        subcommands: [ServeCommand.self, TokenCommand.self, ListenCommand.self, CallCommand.self]
    )
}
