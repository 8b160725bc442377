import CallGateCluster
import CallGateCore
import CallGateProtocol

/// Cluster mode: one push as its owner hands it to Redis, encoded once for every user it goes
/// to: its message around the `seq` Redis gives it, and its frame for this node's devices should
/// Redis not take it.
struct ClusterPush {
    /// The `ClusterMessage.push` before and after its epoch and seq.
    let parts: (beforeSeq: [UInt8], afterSeq: [UInt8])
    /// The frame, without `seq`.
    let frame: HistoryFrame
    /// The device whose request caused it, which gets the reply instead.
    let excluding: ConnectionID?

    /// The push `frame` from node `origin`, for every device but `excluding`.
    init(_ frame: HistoryFrame, from origin: String, excluding: ConnectionID?) {
        parts = ClusterMessage.pushParts(
            origin: origin, excluding: excluding?.rawValue, event: frame.event.rawValue, sessionId: frame.sessionId,
            head: frame.head)
        self.frame = frame
        self.excluding = excluding
    }
}

extension HistoryEntry {
    /// The push `message` carries, as a history entry; nil for another message, or a push
    /// about an event this version does not know.
    init?(_ message: ClusterMessage) {
        guard case .push(_, let excluding, let name, let sessionId, _, let seq, let head) = message,
              let event = EventName(rawValue: name) else { return nil }
        self.init(
            seq: seq, frame: HistoryFrame(head: head, event: event, sessionId: sessionId),
            excluding: excluding.map(ConnectionID.init))
    }
}
