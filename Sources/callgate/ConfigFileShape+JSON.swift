import Foundation

extension ConfigFileShape {
    /// A JSON document's top level. Foundation parses it (as swift-configuration's JSON provider
    /// will, refusing nesting deeper than 512); Foundation keeps the last of a repeated key
    /// silently, so the keys and their lines are read from the text too, and a repeat refused.
    static func json(_ data: Data) throws(Unreadable) -> ConfigFileShape {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw Unreadable(reason: "not JSON: \(reason ?? "\(error)")")
        }
        guard let members = object as? [String: Any] else {
            throw Unreadable(reason: "the file must be a JSON object of keys to values")
        }
        var lines: [String: Int] = [:]
        for (key, line) in topLevelKeys(Array(data)) {
            if lines[key] != nil { throw Unreadable(reason: "line \(line): a key is repeated: '\(key)'") }
            lines[key] = line
        }
        let ordered = members.keys.sorted { (lines[$0] ?? 0, $0) < (lines[$1] ?? 0, $1) }
        return ConfigFileShape(entries: ordered.map { Entry(key: $0, line: lines[$0], shape: shape(of: members[$0] as Any)) })
    }

    private static func shape(of value: Any) -> Shape {
        switch value {
        case is NSNull:
            return .empty
        case let text as String:
            return .scalar(text, .string)
        case let number as NSNumber:
            let boolean = String(cString: number.objCType) == "c"
            return .scalar(boolean ? (number.boolValue ? "true" : "false") : number.stringValue, boolean ? .boolean : .number)
        case let items as [Any]:
            let texts = items.compactMap { $0 as? String }
            return texts.count == items.count ? .list(texts) : .nested("a list of other things than strings")
        default:
            return .nested("an object")
        }
    }

    /// The keys of the top-level object of valid JSON `bytes`, in order, each with its line.
    private static func topLevelKeys(_ bytes: [UInt8]) -> [(String, Int)] {
        var keys: [(String, Int)] = []
        var depth = 0, line = 1, index = 0
        var expectsKey = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\n"):
                line += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                expectsKey = depth == 1 && byte == UInt8(ascii: "{")
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            case UInt8(ascii: ","):
                expectsKey = depth == 1
            case UInt8(ascii: "\""):
                let start = index
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                if expectsKey, let key = try? JSONSerialization.jsonObject(
                    with: Data(bytes[start...min(index, bytes.count - 1)]), options: .fragmentsAllowed) as? String
                {
                    keys.append((key, line))
                }
                expectsKey = false
            default:
                break
            }
            index += 1
        }
        return keys
    }
}
