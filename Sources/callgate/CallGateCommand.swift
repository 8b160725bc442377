import ArgumentParser
import CallGateServer
import Foundation

/// `callgate`: the gateway and its tools.
@main
struct CallGateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "callgate",
        abstract: "A WebSocket gateway for real-time call events.",
        version: GatewayVersion.release,
        subcommands: [
            ServeCommand.self, TokenCommand.self, ListenCommand.self, CallCommand.self, MigrateCommand.self,
            MigrateSQLiteCommand.self, HealthcheckCommand.self, ConfigCommand.self,
        ]
    )
}

/// A command that could not do its job, with one line saying why; printed as `Error: <message>`
/// and exits 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Reads option defaults from the environment (`CALLGATE_*`), so a flag beats the variable.
enum EnvironmentDefault {
    /// The variable's value, nil when unset or empty.
    static func string(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }
}
