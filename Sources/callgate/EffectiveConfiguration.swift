import Configuration
import Foundation

/// What `callgate config print` shows: every `serve` setting in table order with its value and
/// where it came from, as YAML (the config file's own format) or JSON. Secrets show as
/// `<redacted>`, and a URL's password as `postgres://user:<redacted>@host/db`.
enum EffectiveConfiguration {
    /// What stands in for a secret.
    static let redacted = "<redacted>"

    /// YAML: `name: value  # source`; a setting without a value to show is a comment with its
    /// default in words.
    static func yaml(_ settings: ServeSettings) -> String {
        let sources = settings.file.map { "the environment, \($0.path) and the defaults" } ?? "the environment and the defaults"
        var lines = [
            "# callgate serve's configuration from \(sources).",
            "# Flags given to serve win over all of these.",
        ]
        for setting in ServeSetting.all {
            let source = settings.source(setting)
            if let content = shown(setting, settings) {
                lines.append("\(setting.name): \(json(content))  # \(source == .environment ? setting.variable : "\(source)")")
            } else {
                lines.append("# \(setting.name): \(setting.defaultText) (default)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// JSON: `{"name": {"value": ..., "source": ..., "variable": ...}, ...}`; `value` is null
    /// where there is no value to show, and `default` says what `serve` does then.
    static func json(_ settings: ServeSettings) -> String {
        let members = ServeSetting.all.map { setting in
            let value = shown(setting, settings).map(json) ?? "null"
            var fields = [
                "\"value\": \(value)", "\"source\": \(quoted(settings.source(setting).description))",
                "\"variable\": \(quoted(setting.variable))",
            ]
            if settings.content(setting) == nil { fields.append("\"default\": \(quoted(setting.defaultText))") }
            return "  \(quoted(setting.name)): {\(fields.joined(separator: ", "))}"
        }
        return "{\n" + members.joined(separator: ",\n") + "\n}"
    }

    /// The value of `setting` to show, redacted; nil when none is given and the default is not a value.
    private static func shown(_ setting: ServeSetting, _ settings: ServeSettings) -> ConfigContent? {
        guard let content = settings.content(setting) else { return setting.defaultValue }
        switch (setting.secrecy, content) {
        case (.none, _): return content
        case (.whole, _): return .string(redacted)
        case (.urlPassword, .string(let url)): return .string(RedactedURL.redacting(url))
        case (.urlPassword, _): return .string(redacted)
        }
    }

    /// A value in JSON, which is also YAML.
    private static func json(_ content: ConfigContent) -> String {
        switch content {
        case .string(let text): quoted(text)
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .stringArray(let items): "[" + items.map(quoted).joined(separator: ", ") + "]"
        default: quoted("\(content)")
        }
    }

    private static func quoted(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}

/// A URL whose password must not be shown (`postgres://user:password@host/db`).
enum RedactedURL {
    /// Where the password is, nil when the URL has none.
    static func password(in url: String) -> Range<String.Index>? {
        guard let scheme = url.range(of: "://") else { return nil }
        let authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return nil }
        return url.index(after: colon)..<at
    }

    /// The URL with its password replaced by `<redacted>`.
    static func redacting(_ url: String) -> String {
        guard let range = password(in: url) else { return url }
        return url.replacingCharacters(in: range, with: EffectiveConfiguration.redacted)
    }
}
