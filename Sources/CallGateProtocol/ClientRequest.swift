/// A client request: the op together with its typed params.
public enum ClientRequest: Hashable, Sendable {
    /// Authenticate the socket.
    case connect(ConnectParams)
    /// Ask for the server time.
    case ping
    /// Ring a user or a group.
    case initiateCall(InitiateCallParams)
    /// Answer a ringing call.
    case acceptCall(SessionParams)
    /// Decline or cancel a ringing call.
    case rejectCall(RejectCallParams)
    /// Hang up.
    case endCall(SessionParams)

    /// The op name of this request.
    public var op: Op {
        switch self {
        case .connect: .connect
        case .ping: .ping
        case .initiateCall: .initiateCall
        case .acceptCall: .acceptCall
        case .rejectCall: .rejectCall
        case .endCall: .endCall
        }
    }
}
