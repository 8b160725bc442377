import Configuration

/// One option of `callgate serve`. Its name is all three ways to give it: the flag (`--name`),
/// the key of the `--config` file (`name`), and, in capitals with underscores, the environment
/// variable (`CALLGATE_NAME`). `ServeSetting.all` lists every one.
struct ServeSetting: Sendable {
    /// The values a setting accepts.
    enum Kind: Sendable {
        /// Any text but the empty one.
        case text
        /// A whole number in the range; the unit ("seconds") is named in an error.
        case integer(ClosedRange<Int>, unit: String?)
        /// A number in the range.
        case decimal(ClosedRange<Double>)
        /// On or off: the flags `--name` and `--no-name`.
        case toggle
        /// Texts: a repeated flag, a comma-separated variable, a list in the file.
        case list
        /// One of these words.
        case choice([String])
    }

    /// Which part of a value must never be shown.
    enum Secrecy: Sendable {
        case none
        /// The whole value (a secret, a key).
        case whole
        /// The password of a URL (`postgres://user:password@host/db`).
        case urlPassword
    }

    let name: String
    let kind: Kind
    let secrecy: Secrecy
    /// The value `serve` takes when none is given, nil when it has none or computes one.
    let defaultValue: ConfigContent?
    /// What `serve` does when none is given, in words, when `defaultValue` does not say it all.
    let otherwise: String?
    let help: String

    init(
        _ name: String, _ kind: Kind, _ secrecy: Secrecy = .none, default defaultValue: ConfigContent? = nil,
        otherwise: String? = nil, help: String
    ) {
        self.name = name
        self.kind = kind
        self.secrecy = secrecy
        self.defaultValue = defaultValue
        self.otherwise = otherwise
        self.help = help
    }

    /// `CALLGATE_` and the name in capitals, dashes as underscores: swift-configuration's name
    /// for the key `callgate.<name>`.
    var variable: String {
        "CALLGATE_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The key read through swift-configuration.
    var key: ConfigKey { ConfigKey([name]) }

    /// The type it is read as.
    var configType: ConfigType {
        switch kind {
        case .text, .choice: .string
        case .integer: .int
        case .decimal: .double
        case .toggle: .bool
        case .list: .stringArray
        }
    }

    var isSecret: Bool {
        if case .none = secrecy { false } else { true }
    }

    /// What a value must be, for errors: "an integer", "on or off".
    var expected: String {
        switch kind {
        case .text: "text"
        case .integer: "an integer"
        case .decimal: "a number"
        case .toggle: "on or off"
        case .list: "a list of texts"
        case .choice(let words): Self.either(words)
        }
    }

    /// The default in words, for `--help`, `config print` and the example file.
    var defaultText: String {
        otherwise ?? defaultValue.map(Self.text(of:)) ?? "none"
    }

    /// The line `serve --help` shows.
    var flagHelp: String {
        "\(help) Default: \(defaultText). Variable: \(variable)."
    }

    /// Why `content` does not fit, as "must be at least 1, got 0"; nil when it fits.
    func problem(with content: ConfigContent) -> String? {
        switch (kind, content) {
        case (.text, .string(let text)) where text.isEmpty:
            return "must not be empty (leave it out for the default)"
        case (.integer(let range, let unit), .int(let value)) where !range.contains(value):
            return "must be \(Self.bounds(range, unit: unit, below: value < range.lowerBound)), got \(value)"
        case (.decimal(let range), .double(let value)) where !range.contains(value) || !value.isFinite:
            return "must be \(range.lowerBound) to \(range.upperBound), got \(value)"
        case (.choice(let words), .string(let word)) where !words.contains(word):
            return "must be \(Self.either(words)), got '\(word)'"
        default:
            return nil
        }
    }

    /// `content` as a person reads it: `8080`, `text`, `a, b`.
    static func text(of content: ConfigContent) -> String {
        switch content {
        case .string(let text): text
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): value ? "on" : "off"
        case .stringArray(let texts): texts.isEmpty ? "none" : texts.joined(separator: ", ")
        default: "\(content)"
        }
    }

    /// "at least 1", "at most 3600", or "1 to 3600 seconds".
    private static func bounds(_ range: ClosedRange<Int>, unit: String?, below: Bool) -> String {
        let unit = unit.map { " " + $0 } ?? ""
        if below, range.upperBound == Int.max { return "at least \(range.lowerBound)\(unit)" }
        if !below, range.lowerBound == 0 || range.lowerBound == Int.min { return "at most \(range.upperBound)\(unit)" }
        return "\(range.lowerBound) to \(range.upperBound)\(unit)"
    }

    /// "a or b", "a, b or c".
    private static func either(_ words: [String]) -> String {
        guard let last = words.last, words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + last
    }
}
