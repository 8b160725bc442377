import CallGateKit
import CallGateProtocol
import Foundation

/// The JSON a client test vector is written in, and how the client's events read in it.
enum VectorJSON {
    /// `value` with `{"$nowMs": n}` and `{"$nowSeconds": n}` replaced by now plus n.
    static func resolve(_ value: JSONValue) -> JSONValue {
        let now = Date().timeIntervalSince1970
        switch value {
        case .array(let items):
            return .array(items.map(resolve))
        case .object(let members):
            if case .number(let offset)? = members["$nowMs"] {
                return .number((now * 1000).rounded(.down) + offset)
            }
            if case .number(let offset)? = members["$nowSeconds"] {
                return .number(now.rounded(.down) + offset)
            }
            return .object(members.mapValues(resolve))
        default:
            return value
        }
    }

    /// Where `actual` differs from `expected`, every member of which it must have (arrays: the
    /// same length, item by item); nil when it does not.
    static func mismatch(_ expected: JSONValue, _ actual: JSONValue?, at path: String = "") -> String? {
        switch expected {
        case .array(let items):
            guard case .array(let found)? = actual, found.count == items.count else {
                return "\(path): expected \(items.count) items, got \(String(describing: actual))"
            }
            for (index, item) in items.enumerated() {
                if let wrong = mismatch(item, found[index], at: "\(path)[\(index)]") { return wrong }
            }
            return nil
        case .object(let members):
            guard case .object(let found)? = actual else { return "\(path): expected an object, got \(String(describing: actual))" }
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                if let wrong = mismatch(member, found[key], at: "\(path).\(key)") { return wrong }
            }
            return nil
        default:
            return expected == actual ? nil : "\(path): expected \(expected), got \(String(describing: actual))"
        }
    }

    /// The client's events a vector hears only when one of its `app` steps names them.
    static let watchedWhenNamed: Set<String> = ["reconnecting"]

    /// What the app hears as a vector names it: the event's name and its detail.
    static func heard(_ event: CallGateEvent) throws -> (name: String, detail: JSONValue)? {
        switch event {
        case .open(let result):
            return ("open", try json(result))
        case .push(let push):
            guard case .object(let frame) = try parse(push.encodedFrame(seq: 0)) else { return nil }
            return (push.event.rawValue, frame["data"] ?? .null)
        case .closed(let code, let reason, let willReconnect):
            let detail: [String: JSONValue] = [
                "code": .number(Double(code ?? 1006)), "reason": .string(reason), "willReconnect": .bool(willReconnect),
            ]
            return ("close", .object(detail))
        case .recovered(let report):
            let detail: [String: JSONValue] = [
                "recovered": .bool(report.recovered), "missed": .number(Double(report.missed)),
                "resumedSessions": try json(report.resumedSessions), "rejoinedSessions": try json(report.rejoinedSessions),
                "lostSessions": .array(report.lostSessions.map(JSONValue.string)),
            ]
            return ("recovered", .object(detail))
        case .refreshFailed(let message):
            return ("refreshFailed", .object(["message": .string(message)]))
        case .reconnecting(let attempt, let delay):
            let milliseconds = delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000
            return ("reconnecting", .object(["attempt": .number(Double(attempt)), "delayMs": .number(Double(milliseconds))]))
        }
    }

    private static func json(_ value: some Encodable) throws -> JSONValue {
        try parse(JSONEncoder().encode(value))
    }

    static func parse(_ data: Data) throws -> JSONValue {
        try JSONParser.parse(Array(data), maxDepth: 64)
    }
}
