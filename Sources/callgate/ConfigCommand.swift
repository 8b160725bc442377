import ArgumentParser
import Foundation
import Logging

/// `callgate config`: what `serve` would run with, and whether a config file is good.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print serve's configuration, or check a config file.",
        subcommands: [ConfigPrintCommand.self, ConfigCheckCommand.self]
    )
}

/// `callgate config print`: the configuration `serve` takes from the environment and the config
/// file, with the defaults; flags are `serve`'s own and not read here.
struct ConfigPrintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Print the configuration serve would take from the environment and the config file, secrets redacted.",
        discussion: "Each value comes with its source (environment, file or default). Flags given to serve win over all of them; they are not read here."
    )

    /// How the configuration is printed.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case yaml, json
    }

    @Option(name: .customLong("config"), help: "The config file serve would read (default: CALLGATE_CONFIG, else none).")
    var file: String?

    @Option(help: "yaml (default) or json.")
    var format: Format = .yaml

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let path = file ?? EnvironmentDefault.string(ServeSettings.fileVariable)
        let settings: ServeSettings
        do {
            settings = try ServeSettings.resolve(flags: [], filePath: path, environment: environment)
        } catch {
            throw CommandFailure(error.description)
        }
        for warning in settings.warnings {
            FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
        }
        print(format == .yaml ? EffectiveConfiguration.yaml(settings) : EffectiveConfiguration.json(settings))
    }
}

/// `callgate config check FILE`: reads a config file as `serve --config` would, starts nothing.
struct ConfigCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a config file without starting anything: prints ok, or every problem (exit 1).",
        discussion: "A file whose shape is wrong (an unknown, repeated, empty or nested key) is reported for that first; once its shape is right, for every value of the wrong type or out of range; once every value is right, for options that do not go together as serve would take them with this file and the CALLGATE_ variables set now (cluster without a postgres:// database, tls-cert without tls-key, a file it cannot read, ...). The database itself is not opened."
    )

    @Argument(help: "The YAML (.yaml, .yml) or JSON (.json) file.")
    var file: String

    func run() throws {
        let loaded: ConfigFile
        do {
            loaded = try ConfigFile.load(file)
            for warning in loaded.warnings {
                FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data(error.lines.map { $0 + "\n" }.joined().utf8))
            throw ExitCode.failure
        }
        do {
            let settings = try ServeSettings.resolve(flags: [], file: loaded, environment: ProcessInfo.processInfo.environment)
            _ = try ServeCommand.configuration(settings, logger: Logger(label: "callgate") { _ in SwiftLogNoOpLogHandler() })
        } catch let problems as SettingProblems {
            FileHandle.standardError.write(Data("\(problems.description)\n".utf8))
            throw ExitCode.failure
        } catch let invalid as ValidationError {
            FileHandle.standardError.write(Data("\(invalid.message)\n".utf8))
            throw ExitCode.failure
        }
        print("ok")
    }
}
