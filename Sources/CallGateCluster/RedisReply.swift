import CHiredis

/// One RESP2 reply, copied out of hiredis (which frees its reply as soon as the callback
/// returns). Bulk strings are bytes: Redis is binary-safe and so are we.
public enum RedisReply: Sendable, Equatable {
    /// A bulk string.
    case bulk([UInt8])
    /// A simple status (`OK`, `QUEUED`).
    case status(String)
    /// An error reply (`NOSCRIPT ...`, `WRONGTYPE ...`): the command ran and Redis refused it.
    case error(String)
    case integer(Int64)
    case array([RedisReply])
    /// A nil bulk string or array (a missing key; Lua's `false`).
    case null

    /// Copies hiredis's reply tree.
    init(copying reply: UnsafePointer<redisReply>) {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            self = .bulk(Self.bytes(value.str, value.len))
        case REDIS_REPLY_STATUS:
            self = .status(String(decoding: Self.bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            self = .error(String(decoding: Self.bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            self = .integer(Int64(value.integer))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(value.elements)
            for index in 0..<value.elements {
                guard let element = value.element?[index] else {
                    elements.append(.null)
                    continue
                }
                elements.append(RedisReply(copying: element))
            }
            self = .array(elements)
        default:
            self = .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }

    /// A bulk or status reply as UTF-8 text; nil for other kinds.
    public var text: String? {
        switch self {
        case .bulk(let bytes): String(decoding: bytes, as: UTF8.self)
        case .status(let text): text
        default: nil
        }
    }

    /// An integer reply, or a bulk string holding a decimal integer (what HGET and GET answer);
    /// nil otherwise.
    public var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .bulk(let bytes): Int64(String(decoding: bytes, as: UTF8.self))
        default: nil
        }
    }

    /// The elements of an array reply; nil for other kinds.
    public var elements: [RedisReply]? {
        if case .array(let elements) = self { elements } else { nil }
    }
}
