import ArgumentParser
import Configuration

/// `serve`'s flags, each declared from its `ServeSetting` (`@Option(.port) var port: Int?`), so its
/// name and help are the table's. None has a default of its own: absent, it leaves the value to
/// the environment, the config file or the default, in that order.
extension Option where Value == String? {
    init(_ setting: ServeSetting) {
        self.init(name: .customLong(setting.name), help: ArgumentHelp(setting.flagHelp))
    }
}

extension Option where Value == Int? {
    init(_ setting: ServeSetting) {
        self.init(name: .customLong(setting.name), help: ArgumentHelp(setting.flagHelp))
    }
}

extension Option where Value == Double? {
    init(_ setting: ServeSetting) {
        self.init(name: .customLong(setting.name), help: ArgumentHelp(setting.flagHelp))
    }
}

extension Option where Value == [String] {
    /// A repeatable flag: each use adds one item.
    init(_ setting: ServeSetting) {
        self.init(wrappedValue: [], name: .customLong(setting.name), parsing: .singleValue, help: ArgumentHelp(setting.flagHelp))
    }
}

extension Flag where Value == Bool? {
    /// `--name` (on) and `--no-name` (off).
    init(_ setting: ServeSetting) {
        self.init(name: .customLong(setting.name), inversion: .prefixedNo, help: ArgumentHelp(setting.flagHelp))
    }
}

/// A flag's parsed value as swift-configuration holds it; nil when the flag was not given.
protocol GivenFlag {
    var given: ConfigContent? { get }
}

/// A single value a flag parses to.
protocol FlagValue {
    var content: ConfigContent { get }
}

extension String: FlagValue {
    var content: ConfigContent { .string(self) }
}

extension Int: FlagValue {
    var content: ConfigContent { .int(self) }
}

extension Double: FlagValue {
    var content: ConfigContent { .double(self) }
}

extension Bool: FlagValue {
    var content: ConfigContent { .bool(self) }
}

extension Optional: GivenFlag where Wrapped: FlagValue {
    var given: ConfigContent? { map(\.content) }
}

extension Array: GivenFlag where Element == String {
    var given: ConfigContent? { isEmpty ? nil : .stringArray(self) }
}
