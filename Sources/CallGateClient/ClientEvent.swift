import CallGateProtocol
import Foundation

/// Something the server did on its own, as a client sees it.
public enum ClientEvent: Sendable {
    /// A push frame, typed.
    case push(Push)
    /// A reply that matches no pending request (e.g. the error for a frame without a readable id).
    case unmatchedReply(id: String?, outcome: ReplyOutcome)
    /// A frame that is not JSON of protocol v1 (or names an unknown event), kept as it came.
    case unreadableFrame(Data)
    /// The socket closed; `code` is the close code the server sent, if any. Always the last event.
    case closed(code: UInt16?)
}
