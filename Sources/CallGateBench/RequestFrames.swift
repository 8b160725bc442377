import CallGateProtocol

/// Builds the request frames the generator sends, as bytes, with no JSON encoder in the way.
///
/// Values come from the generator (uids, group ids, tokens) or from the server (session ids),
/// and are escaped anyway so that a peer server's odd session id cannot break a frame.
public enum RequestFrames {
    /// `connect` with a connection token.
    public static func connect(token: String) -> [UInt8] {
        frame(.connect, op: "connect", data: "{\"token\":\"\(escaped(token))\"}")
    }

    /// `initiateCall` to a user or a group, audio.
    public static func initiate(receiverId: String, receiverType: ReceiverType) -> [UInt8] {
        frame(
            .initiate, op: "initiateCall",
            data: "{\"receiverId\":\"\(escaped(receiverId))\",\"receiverType\":\"\(receiverType.rawValue)\",\"callType\":\"audio\"}")
    }

    /// `acceptCall` of a ringing call.
    public static func accept(sessionId: some Collection<UInt8>) -> [UInt8] {
        sessionFrame(.accept, op: "acceptCall", sessionId: sessionId, extra: "")
    }

    /// `rejectCall` with status `cancelled`: the caller stops a call nobody answered.
    public static func cancel(sessionId: some Collection<UInt8>) -> [UInt8] {
        sessionFrame(.cancel, op: "rejectCall", sessionId: sessionId, extra: ",\"status\":\"cancelled\"")
    }

    /// `endCall`: hangs up (or, from the caller of a call still ringing, cancels it).
    public static func end(sessionId: some Collection<UInt8>) -> [UInt8] {
        sessionFrame(.end, op: "endCall", sessionId: sessionId, extra: "")
    }

    private static func frame(_ kind: RequestKind, op: String, data: String) -> [UInt8] {
        Array("{\"id\":\"\(kind.id)\",\"op\":\"\(op)\",\"data\":\(data)}".utf8)
    }

    private static func sessionFrame(_ kind: RequestKind, op: String, sessionId: some Collection<UInt8>, extra: String) -> [UInt8] {
        var bytes = Array("{\"id\":\"\(kind.id)\",\"op\":\"\(op)\",\"data\":{\"sessionId\":\"".utf8)
        bytes.reserveCapacity(bytes.count + sessionId.count + extra.utf8.count + 4)
        appendEscaped(sessionId, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: extra.utf8)
        bytes.append(contentsOf: "}}".utf8)
        return bytes
    }

    static func escaped(_ text: String) -> String {
        var bytes: [UInt8] = []
        appendEscaped(text.utf8, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `raw` as the inside of a JSON string: quotes, backslashes and control bytes escaped.
    static func appendEscaped(_ raw: some Collection<UInt8>, to bytes: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        for byte in raw {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
    }
}

/// Which call a driver's unit (a ring pair, a group) is in, by session id, so that late frames
/// of a call it gave up on are not taken for the current one. Service thread of the bench loop.
struct CallIdentity {
    /// The current call's session id, once known (from the reply or the first push).
    var current: [UInt8] = []
    /// The session id of a call given up on, whose late frames are ignored.
    private(set) var retired: [UInt8] = []

    /// Whether `fields` is about the current call (adopting its id if none is known yet).
    mutating func owns(_ fields: FrameFields) -> Bool {
        let id = fields.sessionIdBytes
        if !retired.isEmpty, id.elementsEqual(retired) { return false }
        if current.isEmpty {
            current = Array(id)
            return true
        }
        return id.elementsEqual(current)
    }

    /// The current call is over: its late frames are ignored from now on.
    mutating func retire() {
        retired = current
    }
}
