import CallGateCore
import CallGateProtocol
import LWS

/// One request frame from a socket, by op and by where the socket is in the handshake.
extension GatewayService {
    func handle(_ frame: RequestFrame, from connection: WebSocketConnection, session: ClientSession) {
        beginOutput(concerning: frame.request.sessionId)
        if session.user != nil, frame.request.writesCallLog, let backlog = storeBacklog() {
            fail(connection, requestID: frame.id, code: .storeUnavailable, message: backlog)
            return
        }
        switch (frame.request, session.phase) {
        case (.connect(let params), .awaitingConnect):
            session.phase = .verifying
            verify(params.token, requestID: frame.id, for: session.connectionID)
        case (.connect, .verifying), (.connect, .connected):
            fail(connection, requestID: frame.id, code: .badRequest, message: "this socket already sent connect")
        case (_, .awaitingConnect), (_, .verifying):
            fail(connection, requestID: frame.id, code: .userNotLoggedIn, message: "send connect with a token first")
        case (.refreshToken(let params), .connected):
            refreshToken(params, requestID: frame.id, for: session)
        case (.ping, .connected):
            transmit(OutboundFrame(ReplyFrame.success(id: frame.id, result: PingResult(serverTime: clock.nowMillis()))), to: connection)
        case (.initiateCall(let params), .connected):
            initiateCall(params, requestID: frame.id, from: session, on: connection)
        case (.acceptCall(let params), .connected):
            send(core.acceptCall(sessionId: params.sessionId, from: session.connectionID), replyTo: frame.id, on: connection)
        case (.rejectCall(let params), .connected):
            send(core.rejectCall(params, from: session.connectionID), replyTo: frame.id, on: connection)
        case (.endCall(let params), .connected):
            send(core.endCall(sessionId: params.sessionId, from: session.connectionID), replyTo: frame.id, on: connection)
        case (.generateToken(let params), .connected):
            generateToken(params, requestID: frame.id, for: session, on: connection)
        case (.joinSession(let params), .connected):
            joinSession(params, requestID: frame.id, for: session)
        case (.leaveSession(let params), .connected):
            send(core.leaveSession(sessionId: params.sessionId, from: session.connectionID), replyTo: frame.id, on: connection)
        case (.setMuted(let params), .connected):
            send(core.setMuted(params, from: session.connectionID), replyTo: frame.id, on: connection)
        case (.startRecording(let params), .connected):
            send(core.setRecording(sessionId: params.sessionId, on: true, from: session.connectionID), replyTo: frame.id, on: connection)
        case (.stopRecording(let params), .connected):
            send(core.setRecording(sessionId: params.sessionId, on: false, from: session.connectionID), replyTo: frame.id, on: connection)
        case (.switchToVideo(let params), .connected):
            send(core.switchToVideo(sessionId: params.sessionId, from: session.connectionID), replyTo: frame.id, on: connection)
        }
    }
}
