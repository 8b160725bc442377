import Foundation

/// Reads option defaults from the environment (`CALLGATE_*`), so a flag beats the variable.
enum EnvironmentDefault {
    /// The variable's value, nil when unset or empty.
    static func string(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }
}
