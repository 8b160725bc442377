import CallGateCore
import CallGateProtocol
import LWS

/// The `connect` handshake: the token is checked off the service thread (jwt-kit is async),
/// and the result comes back through the mailbox.
extension GatewayService {
    func verify(_ token: String, requestID: String, for connection: ConnectionID) {
        let tokens = tokens
        offServiceThread({ await tokens.verifiedConnection(token) }) { [self] result in
            finishConnect(result, requestID: requestID, for: connection)
        }
    }

    /// Service thread: registers the user with the Core and replies, or rejects with AUTH_ERR and
    /// 4001, or with ERR_TOO_MANY_DEVICES and 4009 when the user has `maxDevicesPerUser` sockets.
    private func finishConnect(_ result: Result<TokenClaims, TokenError>, requestID: String, for id: ConnectionID) {
        guard let connection = sockets[id], let session = connection.attachment as? ClientSession else { return }
        beginOutput()
        switch result {
        case .failure(let error):
            logger.info(
                "connect refused",
                metadata: ["connection": "\(id)", "client": "\(session.clientAddress)", "reason": "\(error.message)"])
            if let reason = AuthFailureReason(error) {
                metrics.authFailed(reason)
            }
            fail(connection, requestID: requestID, code: .authError, message: error.message)
            emit(.close(id, code: CloseCode.unauthorized, reason: "unauthorized"))
        case .success(let claims) where core.connections(of: claims.user.uid).count >= configuration.maxDevicesPerUser:
            noteLimit(.tooManyDevices, metadata: ["uid": "\(claims.user.uid)", "client": "\(session.clientAddress)"])
            fail(
                connection, requestID: requestID, code: .tooManyDevices,
                message: "\(claims.user.uid) has \(configuration.maxDevicesPerUser) devices connected already")
            emit(.close(id, code: CloseCode.tooManyDevices, reason: "too many devices"))
        case .success(let claims):
            let user = claims.user
            session.phase = .connected(user)
            keepOpen(session, until: claims.expiresAt)
            let activeCalls = core.connect(id, user: user)
            logger.info(
                "connected", metadata: ["uid": "\(user.uid)", "connection": "\(id)", "client": "\(session.clientAddress)"])
            let result = ConnectResult(
                user: user, connectionId: String(id.rawValue), serverTime: clock.nowMillis(), activeCalls: activeCalls,
                tokenExpiresAt: session.tokenExpiresAt)
            transmit(OutboundFrame(ReplyFrame.success(id: requestID, result: result)), to: connection)
            armCoreTimer()
        }
    }
}
