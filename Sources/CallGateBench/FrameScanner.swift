import CallGateProtocol

/// Walks a JSON frame once and picks out `FrameFields`, whatever the order of its keys.
///
/// The gateway sorts keys, a peer server may not; this reads any valid JSON object, skips what it
/// does not need, and gives up (leaving `isReadable` false) on anything that is not JSON.
public enum FrameScanner {
    private static let maxDepth = 32

    /// The fields of `frame`.
    public static func scan(_ frame: [UInt8]) -> FrameFields {
        var fields = FrameFields(bytes: frame)
        frame.withUnsafeBufferPointer { buffer in
            var walker = Walker(bytes: buffer, fields: fields)
            if let end = walker.value(at: walker.skipSpace(0), depth: 0, context: .top) {
                walker.fields.isReadable = walker.skipSpace(end) == buffer.count
            }
            fields = walker.fields
        }
        return fields
    }

    /// Where a value sits, deciding which of its keys are worth keeping.
    private enum Context {
        case top
        case error
        case nested
    }

    private struct Walker {
        let bytes: UnsafeBufferPointer<UInt8>
        var fields: FrameFields

        func skipSpace(_ start: Int) -> Int {
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return index
                }
            }
            return index
        }

        /// The index just after the value starting at `start`, or nil when it is not JSON.
        mutating func value(at start: Int, depth: Int, context: Context) -> Int? {
            guard start < bytes.count, depth < FrameScanner.maxDepth else { return nil }
            switch bytes[start] {
            case UInt8(ascii: "{"): return object(at: start, depth: depth, context: context)
            case UInt8(ascii: "["): return array(at: start, depth: depth)
            case UInt8(ascii: "\""): return string(at: start)?.upperBound.advanced(by: 1)
            default: return scalar(at: start)
            }
        }

        /// The range of a string's contents (between the quotes), starting at its opening quote.
        func string(at start: Int) -> Range<Int>? {
            var index = start + 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""): return (start + 1)..<index
                default: index += 1
                }
            }
            return nil
        }

        func scalar(at start: Int) -> Int? {
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D:
                    return index > start ? index : nil
                default: index += 1
                }
            }
            return index > start ? index : nil
        }

        mutating func array(at start: Int, depth: Int) -> Int? {
            var index = skipSpace(start + 1)
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { return index + 1 }
            while index < bytes.count {
                guard let end = value(at: index, depth: depth + 1, context: .nested) else { return nil }
                index = skipSpace(end)
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: "]") { return index + 1 }
                guard bytes[index] == UInt8(ascii: ",") else { return nil }
                index = skipSpace(index + 1)
            }
            return nil
        }

        mutating func object(at start: Int, depth: Int, context: Context) -> Int? {
            var index = skipSpace(start + 1)
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { return index + 1 }
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: "\""), let key = string(at: index) else { return nil }
                index = skipSpace(key.upperBound + 1)
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index = skipSpace(index + 1)
                guard index < bytes.count else { return nil }
                let valueStart = index
                let keyBytes = UnsafeBufferPointer(rebasing: bytes[key])
                let childContext: Context = context == .top && matches(keyBytes, "error") ? .error : .nested
                guard let end = value(at: valueStart, depth: depth + 1, context: childContext) else { return nil }
                note(key: keyBytes, valueStart: valueStart, valueEnd: end, context: context)
                index = skipSpace(end)
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: "}") { return index + 1 }
                guard bytes[index] == UInt8(ascii: ",") else { return nil }
                index = skipSpace(index + 1)
            }
            return nil
        }

        /// Keeps the value of a key that `FrameFields` wants.
        mutating func note(key: UnsafeBufferPointer<UInt8>, valueStart: Int, valueEnd: Int, context: Context) {
            let isString = bytes[valueStart] == UInt8(ascii: "\"")
            let contents = isString ? (valueStart + 1)..<(valueEnd - 1) : nil
            switch context {
            case .top:
                if matches(key, "id") { fields.id = contents }
                else if matches(key, "event") { fields.event = contents }
                else if matches(key, "result") { fields.hasResult = true }
            case .error:
                if matches(key, "code") { fields.errorCode = contents }
            case .nested:
                break
            }
            if fields.sessionId == nil, let contents, matches(key, "sessionId") {
                fields.sessionId = contents
            }
        }

        func matches(_ key: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
            guard key.count == name.utf8CodeUnitCount else { return false }
            let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            return key.elementsEqual(expected)
        }
    }
}

/// The few fields of one server frame that the generator acts on, as byte ranges into the frame.
///
/// Read by `FrameScanner` without decoding the frame into objects, so that a received push costs
/// one pass over its bytes and no allocation. Service thread of the bench loop.
public struct FrameFields {
    /// The whole frame as received.
    public let bytes: [UInt8]
    /// The top-level `id` string (a reply), without quotes.
    public var id: Range<Int>?
    /// The top-level `event` string (a push), without quotes.
    public var event: Range<Int>?
    /// `error.code` of a failed reply, without quotes.
    public var errorCode: Range<Int>?
    /// The first `sessionId` string found at any depth (a call's id in call pushes and replies).
    public var sessionId: Range<Int>?
    /// Whether the frame has a top-level `result`.
    public var hasResult = false
    /// Whether the frame was well-formed enough to walk to its end.
    public var isReadable = false

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The first byte of the id, which names the request kind (see `RequestKind`).
    public var idPrefix: UInt8? {
        guard let id, !id.isEmpty else { return nil }
        return bytes[id.lowerBound]
    }

    /// Whether the push's event name is exactly `name`.
    public func eventIs(_ name: [UInt8]) -> Bool {
        guard let event else { return false }
        return bytes[event].elementsEqual(name)
    }

    /// The session id's bytes, empty when the frame has none.
    public var sessionIdBytes: ArraySlice<UInt8> {
        sessionId.map { bytes[$0] } ?? []
    }

    /// The error code as text (an allocation; errors are rare).
    public var errorCodeText: String? {
        errorCode.map { String(decoding: bytes[$0], as: UTF8.self) }
    }
}

/// The pushes the generator reacts to; anything else is `other`.
public enum PushKind: Sendable, Equatable {
    case incomingCallReceived
    case outgoingCallAccepted
    case outgoingCallRejected
    case incomingCallCanceled
    case callEndedMessageReceived
    /// The user's count of unseen missed calls: news of the user, not of a call a driver follows.
    case missedCallsChanged
    case other

    private static let names: [(PushKind, [UInt8])] = [
        (.incomingCallReceived, Array(EventName.onIncomingCallReceived.rawValue.utf8)),
        (.incomingCallCanceled, Array(EventName.onIncomingCallCanceled.rawValue.utf8)),
        (.outgoingCallAccepted, Array(EventName.onOutgoingCallAccepted.rawValue.utf8)),
        (.callEndedMessageReceived, Array(EventName.onCallEndedMessageReceived.rawValue.utf8)),
        (.outgoingCallRejected, Array(EventName.onOutgoingCallRejected.rawValue.utf8)),
        (.missedCallsChanged, Array(EventName.onMissedCallsChanged.rawValue.utf8)),
    ]

    /// The kind of a push frame's event.
    public init(_ fields: FrameFields) {
        for (kind, name) in Self.names where fields.eventIs(name) {
            self = kind
            return
        }
        self = .other
    }
}

/// Which request a reply answers, told by the first character of the id the generator gave it.
///
/// Each socket has at most one request of a kind outstanding, so a one-letter id is enough and
/// replies are classified without keeping a table of pending requests.
public enum RequestKind: UInt8, CaseIterable, Sendable {
    case connect = 0x63  // "c"
    case initiate = 0x69  // "i"
    case accept = 0x61  // "a"
    case cancel = 0x78  // "x"
    case end = 0x65  // "e"

    /// The id sent with requests of this kind.
    public var id: String { String(UnicodeScalar(rawValue)) }
}
