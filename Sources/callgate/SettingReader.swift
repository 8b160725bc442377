import Configuration
import Synchronization

/// Where a setting's value came from.
enum SettingSource: Sendable, Equatable, CustomStringConvertible {
    case flag
    case environment
    /// The config file at this path, with the line of each key it gives (when the format tells).
    case file(String, lines: [String: Int])
    case `default`

    var description: String {
        switch self {
        case .flag: "flag"
        case .environment: "environment"
        case .file(let path, _): "file \(path)"
        case .default: "default"
        }
    }

    /// How `setting` is named where this source gives it: `--port`, `CALLGATE_PORT`, `FILE:3: port`.
    func spelling(of setting: ServeSetting) -> String {
        switch self {
        case .flag: "--\(setting.name)"
        case .environment: setting.variable
        case .file(let path, let lines): "\(path)\(lines[setting.name].map { ":\($0)" } ?? ""): \(setting.name)"
        case .default: setting.name
        }
    }
}

/// A setting's value and its source.
struct SettingValue: Sendable {
    let content: ConfigContent
    let source: SettingSource
}

/// Values that do not fit their setting, one line each ("CALLGATE_PORT must be an integer, got
/// 'x'"), or a config file that cannot be read.
struct SettingProblems: Error, CustomStringConvertible {
    let lines: [String]

    /// All of them on one line, for `serve`'s exit.
    var description: String {
        lines.count == 1 ? lines[0] : "\(lines.count) problems: " + lines.joined(separator: "; ")
    }
}

/// Reads `serve`'s settings through a swift-configuration `ConfigReader` whose providers come in
/// order of precedence, and tells for each value which provider gave it. A value a provider
/// cannot convert (`CALLGATE_PORT=x`) and a value out of its setting's range are problems, never
/// the default: the reader's own `int(forKey:)` would fall back to it silently.
struct SettingReader {
    private let reader: ConfigReader
    private let recorder = AccessRecorder()
    /// The source of each provider, in the reader's order.
    private let sources: [SettingSource]
    /// A given value as written, for an error (never a secret's).
    private let writtenValue: (ServeSetting, SettingSource) -> String?

    init(
        providers: [(any ConfigProvider, SettingSource)], writtenValue: @escaping (ServeSetting, SettingSource) -> String?
    ) {
        reader = ConfigReader(providers: providers.map(\.0), accessReporter: recorder)
        sources = providers.map(\.1)
        self.writtenValue = writtenValue
    }

    /// Every setting's value by name (absent: none given) and every problem.
    func read(_ settings: [ServeSetting]) -> (values: [String: SettingValue], problems: [String]) {
        var values: [String: SettingValue] = [:]
        var problems: [String] = []
        for setting in settings {
            ask(setting)
            guard let event = recorder.take() else { continue }
            for (index, result) in event.providerResults.enumerated() {
                switch result.result {
                case .failure:
                    let source = sources[index]
                    let written = setting.isSecret ? nil : writtenValue(setting, source)
                    problems.append(
                        "\(source.spelling(of: setting)) must be \(setting.expected)" + (written.map { ", got '\($0)'" } ?? ""))
                case .success(let lookup):
                    guard let content = lookup.value?.content else { continue }
                    let source = sources[index]
                    if let problem = setting.problem(with: content) {
                        problems.append("\(source.spelling(of: setting)) \(problem)")
                    } else {
                        values[setting.name] = SettingValue(content: content, source: source)
                    }
                }
            }
        }
        return (values, problems)
    }

    /// Reads `setting` as its type, so that the recorder sees what each provider answered.
    private func ask(_ setting: ServeSetting) {
        switch setting.configType {
        case .int: _ = reader.int(forKey: setting.key, isSecret: setting.isSecret)
        case .double: _ = reader.double(forKey: setting.key, isSecret: setting.isSecret)
        case .bool: _ = reader.bool(forKey: setting.key, isSecret: setting.isSecret)
        case .stringArray: _ = reader.stringArray(forKey: setting.key, isSecret: setting.isSecret)
        default: _ = reader.string(forKey: setting.key, isSecret: setting.isSecret)
        }
    }
}

/// Keeps the reader's last access event: which providers it asked, and what each answered.
private final class AccessRecorder: AccessReporter {
    private let last = Mutex<AccessEvent?>(nil)

    func report(_ event: AccessEvent) {
        last.withLock { $0 = event }
    }

    /// The last event, forgotten once taken.
    func take() -> AccessEvent? {
        last.withLock { event in
            defer { event = nil }
            return event
        }
    }
}
