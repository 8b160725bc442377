import Foundation

/// A frame from the server, as a client reads it: a reply to one of its requests or a push.
public enum ServerFrame: Hashable, Sendable {
    /// A reply; `id` is nil only when the request was too broken to have an id.
    case reply(id: String?, outcome: ReplyOutcome)
    /// A push; `raw` is the whole push frame, read its data with `decodePushData` or turn it
    /// into a typed `Push` with `Push(event:frame:)`.
    case push(event: String, raw: Data)
}
