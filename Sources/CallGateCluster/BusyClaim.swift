/// One user's busy claim as Redis keeps it (`ClusterKeys.busy`): which node's call engages the
/// user, and how. Written `"<node>|<sessionId>|<c or j>"`, or `"<node>|-|p"` while an op of that
/// node may engage them; the scripts compare its `"<node>|"` prefix only.
public struct BusyClaim: Hashable, Sendable {
    /// How the call engages the user.
    public enum Stage: UInt8, Sendable {
        /// An op of the node (`initiateCall`, `acceptCall`) is deciding: no call yet.
        case pending = 0x70  // "p"
        /// The caller of a ringing call.
        case calling = 0x63  // "c"
        /// Joined to an answered call.
        case joined = 0x6A  // "j"
    }

    /// The node whose call (or op) engages the user.
    public var node: String
    /// The call's session; nil while pending.
    public var sessionId: String?
    public var stage: Stage

    /// A claim of `node`.
    public init(node: String, sessionId: String?, stage: Stage) {
        self.node = node
        self.sessionId = sessionId
        self.stage = stage
    }

    /// The claim of an op of `node` deciding whether it engages the user.
    public static func pending(on node: String) -> BusyClaim {
        BusyClaim(node: node, sessionId: nil, stage: .pending)
    }

    /// The claim read from Redis; nil when `bytes` are not one (node ids and session ids hold no `|`).
    public init?(_ bytes: [UInt8]) {
        let fields = bytes.split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false)
        guard fields.count == 3, !fields[0].isEmpty, !fields[1].isEmpty, fields[2].count == 1,
              let stage = Stage(rawValue: fields[2][fields[2].startIndex])
        else { return nil }
        let session = String(decoding: fields[1], as: UTF8.self)
        guard (session == "-") == (stage == .pending) else { return nil }
        self.init(node: String(decoding: fields[0], as: UTF8.self), sessionId: stage == .pending ? nil : session, stage: stage)
    }

    /// What Redis keeps.
    public var bytes: [UInt8] {
        Array("\(node)|\(sessionId ?? "-")|".utf8) + [stage.rawValue]
    }
}
