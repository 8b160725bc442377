/// The reconnect hint a node gives in the reason of its 1012 close (``CloseCode/serviceRestart``)
/// when it drains or stops: `{"reconnectWithinMs":N}`, reconnect after a delay drawn at random
/// from 0 to N ms, so the sockets of a node that goes away do not all land on the others at once.
///
/// The gateway spreads its closes over the drain window; the hint spreads each batch of them
/// further. A client that cannot read the hint reconnects with its usual backoff.
public struct ReconnectHint: Hashable, Sendable {
    /// The largest delay a hint may ask for; a reason asking for more is not a hint.
    public static let maxMilliseconds = 60_000
    /// The hint the gateway sends.
    public static let gateway = ReconnectHint(withinMilliseconds: 2_000)

    /// The longest delay before reconnecting, in milliseconds (0 ... ``maxMilliseconds``).
    public let withinMilliseconds: Int

    /// A hint for a delay of up to `milliseconds`, clamped to 0 ... ``maxMilliseconds``.
    public init(withinMilliseconds milliseconds: Int) {
        withinMilliseconds = min(max(milliseconds, 0), Self.maxMilliseconds)
    }

    /// The hint in a close `reason`, nil when the reason is not one: not a JSON object, or
    /// `reconnectWithinMs` missing, not a whole number, or outside 0 ... ``maxMilliseconds``.
    public init?(reason: String) {
        guard case .object(let fields)? = try? JSONParser.parse(Array(reason.utf8), maxDepth: 1),
              case .number(let value)? = fields["reconnectWithinMs"],
              let milliseconds = JSONValue.integer(exactly: value),
              (0...Int64(Self.maxMilliseconds)).contains(milliseconds)
        else { return nil }
        withinMilliseconds = Int(milliseconds)
    }

    /// The close reason carrying this hint (26 to 30 bytes, well inside a close frame's 123).
    public var reason: String { "{\"reconnectWithinMs\":\(withinMilliseconds)}" }

    /// A delay drawn at random from 0 to ``withinMilliseconds``, in milliseconds.
    public func delayMilliseconds(using generator: inout some RandomNumberGenerator) -> Int {
        Int.random(in: 0...withinMilliseconds, using: &generator)
    }
}

extension CloseCode {
    /// The close code a libwebsockets client was given, as the gateway sent it. libwebsockets
    /// 4.1.6 turns a received 1012 (like 1013 to 1015, registered after RFC 6455) into 1002
    /// before its client sees it, but leaves the reason: a 1002 whose reason is a reconnect hint
    /// was the gateway's 1012. Other clients (browsers, SwiftNIO) see 1012 itself.
    public static func seen(_ code: UInt16?, reason: String?) -> UInt16? {
        guard code == protocolError, let reason, ReconnectHint(reason: reason) != nil else { return code }
        return serviceRestart
    }

    /// RFC 6455's protocol error, which libwebsockets also reports for a 1012 it received.
    public static let protocolError: UInt16 = 1002
}
