import Foundation
import Testing
import TestSupport

/// Every option of `serve` has one flag, one environment variable and one config file key, and
/// a flag beats the variable, which beats the file, which beats the default: proven on the real
/// executable, against ArgumentParser's own list of the options and `config print`'s of the
/// settings.
@Suite("serve's settings")
struct ServeSettingsCoverageTests {
    /// The settings `config print` knows, in its order.
    static func settingNames() async throws -> [String] {
        let run = try await CallgateRun.run(["config", "print", "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let order = run.standardOutput.split(separator: "\n").compactMap { line in
            line.split(separator: "\"", maxSplits: 2).dropFirst().first.map(String.init)
        }
        return order.filter { object[$0] != nil }
    }

    /// `config print --format json` under `environment`, by setting name.
    static func printed(_ environment: [String: String], file: String? = nil) async throws -> [String: [String: Any]] {
        let run = try await CallgateRun.run(
            ["config", "print", "--format", "json"] + (file.map { ["--config", $0] } ?? []), environment: environment)
        #expect(run.exitCode == 0, "\(run)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: [String: Any]])
    }

    @Test func theTableHoldsEveryOptionServeHasAndNoOther() async throws {
        let dump = try await CallgateRun.run(["serve", "--experimental-dump-help"])
        #expect(dump.exitCode == 0, "\(dump)")
        let tool = try #require(try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        let command = try #require(tool["command"] as? [String: Any])
        let arguments = try #require(command["arguments"] as? [[String: Any]])
        let names = arguments.flatMap { argument in
            (argument["names"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "long" }
                .compactMap { $0["name"] as? String }
        }
        // An on/off option is two flags, --name and --no-name.
        let options = names.filter { !($0.hasPrefix("no-") && names.contains(String($0.dropFirst(3)))) }
        let notSettings: Set = ["config", "help", "version"]
        let settings = try await Self.settingNames()
        #expect(settings.count >= 58)
        #expect(options.filter { !notSettings.contains($0) }.sorted() == settings.sorted())
        #expect(Set(options).count == options.count, "an option is declared twice: \(options)")

        let help = try await CallgateRun.run(["serve", "--help"])
        let variables = Set(help.standardOutput.matches(of: /CALLGATE_[A-Z_]+/).map { String($0.output) })
        let expected = Set(settings.map { "CALLGATE_" + $0.uppercased().replacingOccurrences(of: "-", with: "_") })
        #expect(variables == expected.union(["CALLGATE_CONFIG"]), "serve --help names \(variables.symmetricDifference(expected))")
    }

    @Test func theOptionsTableOfTheDocsHasEveryKeyNextToItsFlagAndVariable() async throws {
        let docs = try String(
            contentsOf: ProtoChecker.repositoryRoot.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let rows = docs.split(separator: "\n").filter { $0.hasPrefix("| `--") }
        for name in try await Self.settingNames() {
            let variable = "CALLGATE_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
            #expect(rows.contains { $0.contains("`--\(name)`") && $0.contains("`\(variable)`") && $0.contains("| `\(name)`") }
                    || rows.contains { $0.contains("`--\(name)`") && $0.contains("`\(variable)`") && $0.contains(", `\(name)`") },
                    "docs/configuration.md has no row with --\(name), \(variable) and \(name)")
        }
    }

    /// Each setting given once through its variable, then once through its file key (its
    /// default as the value, which is valid; 7 where it has none), reaches the setting of its
    /// own name.
    @Test func everyVariableAndEveryFileKeyReachItsSetting() async throws {
        let defaults = try await Self.printed([:])
        var environment: [String: String] = [:]
        var yaml: [String] = []
        for (name, fields) in defaults {
            let variable = try #require(fields["variable"] as? String)
            let sample: (variable: String, key: String)
            switch fields["value"] {
            case let items as [String]: sample = ((items + ["a"]).joined(separator: ","), "[" + (items + ["a"]).joined(separator: ", ") + "]")
            case let number as NSNumber where String(cString: number.objCType) == "c":
                sample = number.boolValue ? ("on", "on") : ("off", "off")
            case let number as NSNumber: sample = (number.stringValue, number.stringValue)
            case let text as String: sample = (text, "\"\(text)\"")
            default: sample = ("7", "7")
            }
            environment[variable] = sample.variable
            yaml.append("\(name): \(sample.key)")
        }
        environment["CALLGATE_MAX_DEVICES_PER_USER"] = "11"
        let fromEnvironment = try await Self.printed(environment)
        let directory = try TemporaryDirectory()
        let file = directory.path("all.yaml")
        try yaml.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try await Self.printed([:], file: file)
        #expect(defaults.count >= 58)
        for name in defaults.keys.sorted() {
            #expect(fromEnvironment[name]?["source"] as? String == "environment", "\(name): \(fromEnvironment[name] ?? [:])")
            #expect(fromFile[name]?["source"] as? String == "file \(file)", "\(name): \(fromFile[name] ?? [:])")
        }
        #expect(fromEnvironment["max-devices-per-user"]?["value"] as? Int == 11)
        #expect(fromFile["trusted-proxy"]?["value"] as? [String] == ["a"])
    }
}
