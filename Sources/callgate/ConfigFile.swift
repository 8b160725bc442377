import Configuration
import Foundation
import Synchronization

/// A `--config` file: YAML (`.yaml`, `.yml`) or JSON (`.json`) whose keys are `serve`'s option
/// names. Loading checks it whole before `serve` uses any of it: at most `maxBytes` of UTF-8, one
/// document that parses within `parseDeadline`, no key unknown, repeated, empty or nested, and
/// every value of its setting's type and range. Its values are then read through
/// swift-configuration's JSON or YAML snapshot of the same bytes.
struct ConfigFile: Sendable {
    let path: String
    /// The file as a provider of the settings it gives.
    let provider: any ConfigProvider
    /// Each key's value as written, for errors about it.
    private let written: [String: String]
    /// Each key's line, when the format tells.
    private let lines: [String: Int]
    /// What to warn about without refusing the file.
    let warnings: [String]

    /// The largest file read: a config file is a few kilobytes.
    static let maxBytes = 1 << 20
    /// How long parsing may take (a file of YAML aliases can make it take forever).
    static let parseDeadline = 5.0

    /// The file as the source of a value.
    var source: SettingSource { .file(path, lines: lines) }

    /// The value of `setting` as the file writes it, nil when the file does not give it.
    func writtenValue(of setting: ServeSetting) -> String? {
        written[setting.name]
    }

    /// Reads and checks the file at `path`; throws naming every problem found.
    static func load(_ path: String) throws(SettingProblems) -> ConfigFile {
        let isJSON: Bool
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "yaml", "yml": isJSON = false
        case "json": isJSON = true
        default: throw SettingProblems(lines: ["\(path): a config file ends in .yaml, .yml or .json"])
        }
        // A symbolic link (a Kubernetes ConfigMap's file is one) counts as the file it leads to.
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let data = try contents(of: target, named: path)
        guard let text = String(data: data, encoding: .utf8) else {
            throw SettingProblems(lines: ["\(path): not UTF-8 text"])
        }
        let parsed = Deadline.run(seconds: parseDeadline) { () -> Result<(ConfigFileShape, (any ConfigSnapshot)?), SettingProblems> in
            parse(text: text, data: data, isJSON: isJSON, path: path)
        }
        guard let parsed else {
            throw SettingProblems(lines: ["\(path): still parsing after \(Int(parseDeadline)) s; is it built of YAML aliases?"])
        }
        let (shape, snapshot) = try parsed.get()
        let provider: any ConfigProvider = snapshot.map { FileSnapshotProvider(contents: $0) }
            ?? InMemoryProvider(name: path, values: [:])
        let written = Dictionary(shape.entries.map { entry in
            switch entry.shape {
            case .scalar(let text, _): (entry.key, text)
            case .list(let items): (entry.key, items.joined(separator: ","))
            default: (entry.key, "")
            }
        }) { first, _ in first }
        let lines = Dictionary(shape.entries.compactMap { entry in entry.line.map { (entry.key, $0) } }) { first, _ in first }
        let reader = SettingReader(providers: [(provider, .file(path, lines: lines))]) { setting, _ in written[setting.name] }
        let problems = reader.read(ServeSetting.all).problems
        guard problems.isEmpty else { throw SettingProblems(lines: problems) }
        return ConfigFile(
            path: path, provider: provider, written: written, lines: lines, warnings: warnings(target: target, path: path, shape: shape))
    }

    /// The bytes of a regular file of at most `maxBytes` at `target`, called `path` in errors.
    private static func contents(of target: String, named path: String) throws(SettingProblems) -> Data {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: target)
        } catch {
            throw SettingProblems(lines: ["\(path): cannot read it (\((error as NSError).localizedDescription))"])
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw SettingProblems(lines: ["\(path): not a regular file"])
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maxBytes, let handle = FileHandle(forReadingAtPath: target) else {
            throw SettingProblems(lines: [
                size > maxBytes ? "\(path): \(size) bytes; a config file may have at most \(maxBytes)" : "\(path): cannot open it",
            ])
        }
        defer { try? handle.close() }
        guard let read = try? handle.read(upToCount: maxBytes + 1), read.count <= maxBytes else {
            return try emptyOrUnreadable(handle, path)
        }
        return read
    }

    /// An empty file's no bytes (`read` answers nil at its end); else the file could not be read.
    private static func emptyOrUnreadable(_ handle: FileHandle, _ path: String) throws(SettingProblems) -> Data {
        guard (try? handle.offset()) == 0, (try? handle.readToEnd()) == nil else {
            throw SettingProblems(lines: ["\(path): cannot read it, or it grew past \(maxBytes) bytes"])
        }
        return Data()
    }

    /// The shape of the file, checked, and swift-configuration's snapshot of it (none for a file
    /// without a key: swift-configuration refuses a YAML document that is not a mapping).
    private static func parse(
        text: String, data: Data, isJSON: Bool, path: String
    ) -> Result<(ConfigFileShape, (any ConfigSnapshot)?), SettingProblems> {
        let shape: ConfigFileShape
        do {
            shape = try isJSON ? ConfigFileShape.json(data) : ConfigFileShape.yaml(text)
        } catch {
            return .failure(SettingProblems(lines: ["\(path): \(error.reason)"]))
        }
        let problems = shape.problems(path: path)
        guard problems.isEmpty else { return .failure(SettingProblems(lines: problems)) }
        guard !shape.entries.isEmpty else { return .success((shape, nil)) }
        let secrets = Set(ServeSetting.all.filter(\.isSecret).map(\.name))
        do {
            let snapshot: any ConfigSnapshot = isJSON
                ? try JSONSnapshot(data: data.bytes, providerName: path, parsingOptions: .init(secretsSpecifier: .specific(secrets)))
                : try YAMLSnapshot(data: data.bytes, providerName: path, parsingOptions: .init(secretsSpecifier: .specific(secrets)))
            return .success((shape, snapshot))
        } catch {
            return .failure(SettingProblems(lines: ["\(path): \(error)"]))
        }
    }

    /// A warning when others than the owner and group may read the file at `target` (`path`)
    /// and it holds secrets.
    private static func warnings(target: String, path: String, shape: ConfigFileShape) -> [String] {
        let permissions = (try? FileManager.default.attributesOfItem(atPath: target))?[.posixPermissions] as? NSNumber
        guard let permissions, permissions.intValue & 0o004 != 0 else { return [] }
        let secrets = shape.entries.compactMap { entry -> String? in
            guard let setting = ServeSetting.named(entry.key), case .scalar(let value, _) = entry.shape else { return nil }
            switch setting.secrecy {
            case .none: return nil
            case .whole: return setting.name
            case .urlPassword: return RedactedURL.password(in: value) == nil ? nil : setting.name
            }
        }
        guard !secrets.isEmpty else { return [] }
        return [
            "\(path) holds secrets (\(secrets.joined(separator: ", "))) and every user of this machine may read it: chmod o-r \(path)"
        ]
    }
}

/// A config file's snapshot as a provider: its values never change while `serve` runs.
struct FileSnapshotProvider: ConfigProvider {
    let contents: any ConfigSnapshot

    var providerName: String { contents.providerName }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try contents.value(forKey: key, type: type)
    }

    func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        try value(forKey: key, type: type)
    }

    nonisolated(nonsending) func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey, type: ConfigType,
        updatesHandler: nonisolated(nonsending) (ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws
            -> Return
    ) async throws -> Return {
        try await watchValueFromValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }

    func snapshot() -> any ConfigSnapshot {
        contents
    }

    nonisolated(nonsending) func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchSnapshotFromSnapshot(updatesHandler: updatesHandler)
    }
}

/// Runs work on a thread of its own, with a deep stack, for at most a given time.
enum Deadline {
    /// The result of `work`, or nil when it took longer than `seconds` (it is left running).
    static func run<Value: Sendable>(seconds: Double, _ work: @escaping @Sendable () -> Value) -> Value? {
        let outcome = Outcome<Value>()
        let thread = Thread {
            outcome.finish(work())
        }
        thread.stackSize = 16 << 20
        thread.start()
        guard outcome.done.wait(timeout: .now() + seconds) == .success else { return nil }
        return outcome.value.withLock { $0 }
    }

    /// The value the thread hands back, and the signal that it did.
    private final class Outcome<Value: Sendable>: Sendable {
        let value = Mutex<Value?>(nil)
        let done = DispatchSemaphore(value: 0)

        func finish(_ result: Value) {
            value.withLock { $0 = result }
            done.signal()
        }
    }
}
