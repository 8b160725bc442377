import Configuration
import Foundation

/// The value of every `serve` setting and where it came from. A flag beats the environment,
/// which beats the config file, which beats the default: swift-configuration's `ConfigReader`
/// asks its providers in that order.
struct ServeSettings: Sendable {
    /// The given values by setting name; a setting not in it takes its default.
    let values: [String: SettingValue]
    /// The config file read, if any.
    let file: ConfigFile?
    /// Things worth a warning in the log that do not stop `serve`.
    let warnings: [String]

    /// The variable that names the config file when `--config` is absent.
    static let fileVariable = "CALLGATE_CONFIG"

    /// Reads every setting from `flags`, then `environment` (its `CALLGATE_*` variables; an empty
    /// one counts as unset), then the config file at `filePath`. Throws naming every value that
    /// does not fit, and every problem of the file.
    static func resolve(
        flags: [(ServeSetting, any GivenFlag)], filePath: String?, environment: [String: String]
    ) throws(SettingProblems) -> ServeSettings {
        try checkRenamed(environment)
        return try read(flags: flags, file: filePath.map(ConfigFile.load), environment: environment)
    }

    /// Reads every setting as `resolve(flags:filePath:environment:)` does, with the config file
    /// `file` read already (`config check` read it for its own problems first).
    static func resolve(
        flags: [(ServeSetting, any GivenFlag)], file: ConfigFile?, environment: [String: String]
    ) throws(SettingProblems) -> ServeSettings {
        try checkRenamed(environment)
        return try read(flags: flags, file: file, environment: environment)
    }

    private static func read(
        flags: [(ServeSetting, any GivenFlag)], file: ConfigFile?, environment: [String: String]
    ) throws(SettingProblems) -> ServeSettings {
        let variables = environment.filter { $0.key.hasPrefix("CALLGATE_") && !$0.value.isEmpty }
        var providers: [(any ConfigProvider, SettingSource)] = [
            (InMemoryProvider(name: "flags", values: flagValues(flags)), .flag),
            (environmentProvider(variables), .environment),
        ]
        if let file { providers.append((file.provider, file.source)) }
        let reader = SettingReader(providers: providers) { setting, source in
            switch source {
            case .environment: variables[setting.variable]
            case .file: file?.writtenValue(of: setting)
            default: nil
            }
        }
        let (values, problems) = reader.read(ServeSetting.all)
        guard problems.isEmpty else { throw SettingProblems(lines: problems) }
        let known = Set(ServeSetting.all.map(\.variable) + [fileVariable])
        let unknown = variables.keys.filter { !known.contains($0) }.sorted()
        var warnings = file?.warnings ?? []
        if !unknown.isEmpty {
            warnings.append("these CALLGATE_ variables name no serve option and are ignored: \(unknown.joined(separator: ", "))")
        }
        return ServeSettings(values: values, file: file, warnings: warnings)
    }

    /// Throws naming each variable set under a name it no longer has.
    private static func checkRenamed(_ environment: [String: String]) throws(SettingProblems) {
        let renamed = ServeSetting.renamedVariables.filter { !(environment[$0.key] ?? "").isEmpty }.sorted { $0.key < $1.key }
        guard renamed.isEmpty else {
            throw SettingProblems(lines: renamed.map { "\($0.key) is now \($0.value.variable) (the name of --\($0.value.name))" })
        }
    }

    /// What this process's environment gives, with the config file `CALLGATE_CONFIG` names: what
    /// `serve` started with the same environment and no flags runs with.
    static func fromEnvironment() throws(SettingProblems) -> ServeSettings {
        let environment = ProcessInfo.processInfo.environment
        return try resolve(flags: [], filePath: EnvironmentDefault.string(fileVariable), environment: environment)
    }

    /// The flags given, as an in-memory provider's values.
    private static func flagValues(_ flags: [(ServeSetting, any GivenFlag)]) -> [AbsoluteConfigKey: ConfigValue] {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for (setting, flag) in flags {
            if let content = flag.given {
                values[AbsoluteConfigKey(setting.key)] = ConfigValue(content, isSecret: setting.isSecret)
            }
        }
        return values
    }

    /// The `CALLGATE_*` variables, read under the key prefix `callgate` (`CALLGATE_MAX_DEVICES_PER_USER`
    /// for `max-devices-per-user`), secrets marked as such. On/off settings also take `on` and `off`.
    private static func environmentProvider(_ variables: [String: String]) -> some ConfigProvider {
        var spelled = variables
        for setting in ServeSetting.all {
            guard case .toggle = setting.kind, let value = variables[setting.variable] else { continue }
            switch value.lowercased() {
            case "on": spelled[setting.variable] = "true"
            case "off": spelled[setting.variable] = "false"
            default: break
            }
        }
        let secrets = Set(ServeSetting.all.filter(\.isSecret).map(\.variable))
        return EnvironmentVariablesProvider(environmentVariables: spelled, secretsSpecifier: .specific(secrets))
            .prefixKeys(with: ConfigKey(["callgate"]))
    }

    /// The value of `setting` given by a flag, the environment or the file; nil when none was.
    func content(_ setting: ServeSetting) -> ConfigContent? {
        values[setting.name]?.content
    }

    /// Where the value of `setting` comes from.
    func source(_ setting: ServeSetting) -> SettingSource {
        values[setting.name]?.source ?? .default
    }

    /// `setting` as its source spells it, for an error: `--tls-key`, `CALLGATE_TLS_KEY`, `FILE: tls-key`.
    func spelling(of setting: ServeSetting) -> String {
        source(setting).spelling(of: setting)
    }

    /// The value given for `setting`, else its default; nil when it has none.
    func text(_ setting: ServeSetting) -> String? {
        if case .string(let text)? = resolved(setting) { text } else { nil }
    }

    func integer(_ setting: ServeSetting) -> Int? {
        if case .int(let value)? = resolved(setting) { value } else { nil }
    }

    func decimal(_ setting: ServeSetting) -> Double? {
        if case .double(let value)? = resolved(setting) { value } else { nil }
    }

    func toggle(_ setting: ServeSetting) -> Bool? {
        if case .bool(let value)? = resolved(setting) { value } else { nil }
    }

    /// The items given (blank ones dropped), else the default's.
    func list(_ setting: ServeSetting) -> [String] {
        guard case .stringArray(let items)? = resolved(setting) else { return [] }
        return items.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    private func resolved(_ setting: ServeSetting) -> ConfigContent? {
        content(setting) ?? setting.defaultValue
    }
}
