/// One message between the nodes of a cluster, as published on a Redis channel: a header line
/// of space-separated fields, a newline, then the body bytes as they are.
///
/// A node's own channel (`ClusterKeys.nodeChannel`) carries ops forwarded to it, their answers
/// (and word that an answer waits for the owner's store), departures of devices it was
/// forwarded ops from, and its probes; a user's channel (`ClusterKeys.userChannel`) carries the
/// pushes to that user. The nodes trust one another (they share Redis), but a message that
/// does not parse is dropped, never trusted in part.
public enum ClusterMessage: Equatable, Sendable {
    /// A push for the devices of the channel's user, but `excluding`, from the node `origin`
    /// that owns its call: `head` is the frame up to its `seq`, the push's number in the user's
    /// sequence `epoch` (given by Redis, see `PushStream`), about `event` and `sessionId` (empty
    /// for a push about no call).
    case push(origin: String, excluding: UInt64?, event: String, sessionId: String, epoch: String, seq: UInt64, head: [UInt8])
    /// A request frame from `connection` (a device of `user`, JSON) on node `from`, for the node
    /// that owns the call it names; the answer goes back to `from` under `ticket`.
    case forward(ticket: UInt64, from: String, connection: UInt64, user: [UInt8], frame: [UInt8])
    /// The reply frame to the forward `ticket`, for the device that asked; for a `command`, its
    /// HTTP response (`"<status>\n<body>"`).
    case answer(ticket: UInt64, frame: [UInt8])
    /// An admin API op on a call (its JSON `body`) from node `from`, for the node that owns the
    /// call; the answer goes back to `from` under `ticket`.
    case command(ticket: UInt64, from: String, body: [UInt8])
    /// The forward `ticket` ran, and its answer waits for the owner's store: the node that sent
    /// it waits on as long as the owner is live.
    case held(ticket: UInt64)
    /// Device `connection` of `user` (JSON) is on node `from`: the user is present for the calls
    /// of this node, until it departs.
    case present(from: String, connection: UInt64, user: [UInt8])
    /// Node `from` lost its last known device of `uid`, who has calls there: this node announces
    /// its devices of `uid` to it, if it has any.
    case lookFor(from: String, uid: String)
    /// Device `connection`, which had ops forwarded to this node or was announced, disconnected.
    case departed(connection: UInt64)
    /// Node `from` still holds `connections`, devices it forwarded ops from or announced to this
    /// node: their lease here is renewed (`RemoteDevices`).
    case renew(from: String, connections: [UInt64])
    /// Node `from` was asked to renew `connections` but does not run them (it let their lease
    /// lapse, or restarted): this node announces them to it again.
    case unknown(from: String, connections: [UInt64])
    /// Node `from` became live under run `run` (it joined, or came back from a suspension): the
    /// devices it holds count on this node at once, not from this node's next heartbeat.
    case live(from: String, run: String)
    /// Node `origin` changed group `guid` (its change is saved).
    case groupChanged(origin: String, guid: String)
    /// Node `origin` changed the webhook endpoints (its change is saved).
    case webhooksChanged(origin: String)
    /// A node's probe of its own subscription.
    case probe

    /// The bytes published.
    public var encoded: [UInt8] {
        switch self {
        case .push(let origin, let excluding, let event, let sessionId, let epoch, let seq, let head):
            Self.numbered(
                Self.pushParts(origin: origin, excluding: excluding, event: event, sessionId: sessionId, head: head),
                epoch: epoch, seq: seq)
        case .forward(let ticket, let from, let connection, let user, let frame):
            Self.line(["F", String(ticket), from, String(connection)]) + user + [Self.newline] + frame
        case .answer(let ticket, let frame):
            Self.line(["A", String(ticket)]) + frame
        case .command(let ticket, let from, let body):
            Self.line(["C", String(ticket), from]) + body
        case .held(let ticket):
            Self.line(["W", String(ticket)])
        case .present(let from, let connection, let user):
            Self.line(["H", from, String(connection)]) + user
        case .lookFor(let from, let uid):
            Self.line(["L", from]) + Array(uid.utf8)
        case .departed(let connection):
            Self.line(["D", String(connection)])
        case .renew(let from, let connections):
            Self.line(["R", from]) + Array(connections.map { String($0) }.joined(separator: " ").utf8)
        case .unknown(let from, let connections):
            Self.line(["U", from]) + Array(connections.map { String($0) }.joined(separator: " ").utf8)
        case .live(let from, let run):
            Self.line(["V", from, run])
        case .groupChanged(let origin, let guid):
            Self.line(["G", origin]) + Array(guid.utf8)
        case .webhooksChanged(let origin):
            Self.line(["E", origin])
        case .probe:
            Self.line(["K"])
        }
    }

    /// The message `bytes` hold; nil when they are no well-formed message.
    public init?(_ bytes: [UInt8]) {
        guard let end = bytes.firstIndex(of: Self.newline) else { return nil }
        let fields = bytes[..<end].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        let body = Array(bytes[(end + 1)...])
        guard let kind = fields.first, fields.allSatisfy({ !$0.isEmpty }) else { return nil }
        switch (kind, fields.count) {
        case ("P", 7):
            let excluding = fields[2] == "-" ? nil : UInt64(fields[2])
            guard fields[2] == "-" || excluding != nil, let seq = UInt64(fields[6]) else { return nil }
            self = .push(
                origin: fields[1], excluding: excluding, event: fields[3],
                sessionId: fields[4] == Self.noSession ? "" : fields[4], epoch: fields[5], seq: seq, head: body)
        case ("F", 4):
            guard let ticket = UInt64(fields[1]), let connection = UInt64(fields[3]),
                  let split = body.firstIndex(of: Self.newline) else { return nil }
            self = .forward(
                ticket: ticket, from: fields[2], connection: connection, user: Array(body[..<split]),
                frame: Array(body[(split + 1)...]))
        case ("A", 2):
            guard let ticket = UInt64(fields[1]) else { return nil }
            self = .answer(ticket: ticket, frame: body)
        case ("C", 3):
            guard let ticket = UInt64(fields[1]), !body.isEmpty else { return nil }
            self = .command(ticket: ticket, from: fields[2], body: body)
        case ("W", 2):
            guard let ticket = UInt64(fields[1]), body.isEmpty else { return nil }
            self = .held(ticket: ticket)
        case ("H", 3):
            guard let connection = UInt64(fields[2]), !body.isEmpty else { return nil }
            self = .present(from: fields[1], connection: connection, user: body)
        case ("L", 2):
            guard !body.isEmpty else { return nil }
            self = .lookFor(from: fields[1], uid: String(decoding: body, as: UTF8.self))
        case ("D", 2):
            guard let connection = UInt64(fields[1]), body.isEmpty else { return nil }
            self = .departed(connection: connection)
        case ("R", 2), ("U", 2):
            let ids = body.split(separator: UInt8(ascii: " ")).map { UInt64(String(decoding: $0, as: UTF8.self)) }
            guard !body.isEmpty, ids.allSatisfy({ $0 != nil }) else { return nil }
            self = kind == "R"
                ? .renew(from: fields[1], connections: ids.compactMap { $0 })
                : .unknown(from: fields[1], connections: ids.compactMap { $0 })
        case ("V", 3):
            guard body.isEmpty else { return nil }
            self = .live(from: fields[1], run: fields[2])
        case ("G", 2):
            guard !body.isEmpty else { return nil }
            self = .groupChanged(origin: fields[1], guid: String(decoding: body, as: UTF8.self))
        case ("E", 2):
            guard body.isEmpty else { return nil }
            self = .webhooksChanged(origin: fields[1])
        case ("K", 1):
            guard body.isEmpty else { return nil }
            self = .probe
        default:
            return nil
        }
    }

    /// A push's message in the two parts around its epoch and `seq`, which Redis puts between
    /// them when it numbers the push (`PushStream.append`).
    public static func pushParts(
        origin: String, excluding: UInt64?, event: String, sessionId: String, head: [UInt8]
    ) -> (beforeSeq: [UInt8], afterSeq: [UInt8]) {
        let fields = ["P", origin, excluding.map { String($0) } ?? "-", event, sessionId.isEmpty ? noSession : sessionId]
        return (Array((fields.joined(separator: " ") + " ").utf8), [newline] + head)
    }

    /// A push's session field when it is about no call (`onMissedCallsChanged`): no session id
    /// holds a `*`.
    private static let noSession = "*"

    /// A push's message: its parts with its epoch and `seq` between them, as Redis joins them.
    private static func numbered(
        _ parts: (beforeSeq: [UInt8], afterSeq: [UInt8]), epoch: String, seq: UInt64
    ) -> [UInt8] {
        parts.beforeSeq + Array("\(epoch) \(seq)".utf8) + parts.afterSeq
    }

    private static let newline = UInt8(ascii: "\n")

    private static func line(_ fields: [String]) -> [UInt8] {
        Array(fields.joined(separator: " ").utf8) + [newline]
    }
}
