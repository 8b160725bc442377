import Foundation
import Yams

/// The top level of a config file as written: each key with its line and the shape of its value,
/// so that unknown, repeated and misshapen keys are named before any value is read. The file is
/// flat: every key is a `serve` option's name and every value a scalar or a list of scalars.
struct ConfigFileShape: Sendable {
    /// What a value looks like.
    enum Shape: Sendable {
        /// One value; in JSON, which literal it was.
        case scalar(String, Literal)
        /// A list of texts.
        case list([String])
        /// No value (`key:` in YAML, `null`).
        case empty
        /// Something the file has no place for, as "a mapping".
        case nested(String)
    }

    /// A JSON literal's kind; YAML's scalars are all `plain` (their type is read later).
    enum Literal: Sendable {
        case plain, string, number, boolean
    }

    struct Entry: Sendable {
        let key: String
        /// Where the key is, when the format tells (1-based).
        let line: Int?
        let shape: Shape
    }

    /// A file that does not parse, with the reason in one line.
    struct Unreadable: Error {
        let reason: String
    }

    let entries: [Entry]

    /// Every problem of the shape, in file order, one line each, `path: ...`.
    func problems(path: String) -> [String] {
        entries.compactMap { entry in
            let place = entry.line.map { "\(path):\($0): " } ?? "\(path): "
            guard let setting = ServeSetting.named(entry.key) else {
                let hint = Self.likelyName(of: entry.key).map { "; did you mean '\($0)'?" } ?? ""
                return "\(place)unknown key '\(entry.key)'\(hint)"
            }
            guard let wrong = Self.mismatch(entry.shape, setting) else { return nil }
            return "\(place)\(setting.name) must be \(setting.expected), not \(wrong)"
        }
    }

    /// What is wrong with `shape` for `setting` ("a mapping", "a list"), nil when it fits.
    private static func mismatch(_ shape: Shape, _ setting: ServeSetting) -> String? {
        switch (shape, setting.kind) {
        case (.nested(let what), _): return what
        case (.empty, _): return "empty (leave the key out for the default)"
        case (.list, .list): return nil
        case (.list, _): return "a list"
        case (.scalar, .list): return "a single value (write a list: [a, b])"
        case (.scalar(_, .plain), _): return nil
        case (.scalar(_, .string), .text), (.scalar(_, .string), .choice): return nil
        case (.scalar(_, .number), .integer), (.scalar(_, .number), .decimal): return nil
        case (.scalar(_, .boolean), .toggle): return nil
        case (.scalar(_, .string), _) where setting.isSecret: return "a string"
        case (.scalar(let text, .string), _): return "the string \"\(text.prefix(40))\""
        case (.scalar(_, .number), _) where setting.isSecret: return "a number"
        case (.scalar(let text, _), _): return String(text.prefix(40))
        }
    }

    /// The option a mistyped key most likely means: the same words spelled as a variable
    /// (`CALLGATE_PORT`), in camel case (`maxDevicesPerUser`) or with underscores, or one or two
    /// letters off.
    static func likelyName(of key: String) -> String? {
        var words = ""
        var previous: Character?
        for character in key {
            if character.isUppercase, previous?.isLowercase == true { words.append("-") }
            words.append(character == "_" ? "-" : Character(character.lowercased()))
            previous = character
        }
        if words.hasPrefix("callgate-") { words.removeFirst("callgate-".count) }
        if ServeSetting.named(words) != nil { return words }
        return ServeSetting.all.map(\.name).first { distance(words, $0) <= 2 }
    }

    /// The edit distance of two short names (Levenshtein).
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8.prefix(64)), b = Array(b.utf8.prefix(64))
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension ConfigFileShape {
    /// A YAML document's top level (Yams, which refuses a key repeated in a mapping and nesting
    /// deeper than 1000).
    static func yaml(_ text: String) throws(Unreadable) -> ConfigFileShape {
        let root: Node?
        do {
            root = try Yams.Parser(yaml: text).singleRoot()
        } catch {
            throw Unreadable(reason: describe(error))
        }
        guard let root else { return ConfigFileShape(entries: []) }
        guard let mapping = root.mapping else { throw Unreadable(reason: "the file must be a mapping of keys to values") }
        var entries: [Entry] = []
        for (key, value) in mapping {
            let line = key.mark?.line
            guard let name = key.scalar?.string else {
                throw Unreadable(reason: "line \(line ?? 0): a key must be a plain name")
            }
            entries.append(Entry(key: name, line: line, shape: shape(of: value)))
        }
        return ConfigFileShape(entries: entries)
    }

    private static func shape(of node: Node) -> Shape {
        switch node {
        case .scalar(let scalar):
            return scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
                ? .empty : .scalar(scalar.string, .plain)
        case .sequence(let sequence):
            let items = sequence.compactMap { $0.scalar?.string }
            return items.count == sequence.count ? .list(items) : .nested("a list of lists or mappings")
        case .mapping:
            return .nested("a mapping")
        case .alias:
            return .nested("an alias")
        }
    }

    /// A Yams error in one line: where and why, never the text around it (it may hold a secret).
    private static func describe(_ error: any Error) -> String {
        switch error as? YamlError {
        case .duplicatedKeysInMapping(let duplicates, let context)?:
            let names = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return "line \(context.mark.line): a key is repeated: \(names)"
        case .scanner(_, let problem, let mark, _)?, .parser(_, let problem, let mark, _)?,
             .composer(_, let problem, let mark, _)?:
            return "line \(mark.line), column \(mark.column): \(problem)"
        case .reader(let problem, let offset, _, _)?:
            return "byte \(offset ?? 0): \(problem)"
        default:
            return "not YAML: \(error)"
        }
    }
}
