import CallGateCore
import CallGateProtocol
import LWS

/// A socket lives as long as its connection token: at the token's `exp` it is closed with 4003,
/// unless `refreshToken` brought a later token for the same user first. Service thread only,
/// except the token check, which runs off it like `connect`'s.
extension GatewayService {
    /// Schedules the close of `session` at `expiresAt` (Unix seconds), or keeps the current
    /// schedule when that is later: a refresh never shortens a socket's life, so two refreshes
    /// whose checks finish out of order leave the later token in force.
    func keepOpen(_ session: ClientSession, until expiresAt: Int64) {
        guard expiresAt > session.tokenExpiresAt else { return }
        session.tokenExpiresAt = expiresAt
        if let timer = session.expiryTimer {
            tokenExpiries.cancel(timer)
        }
        let remaining = max(0, expiresAt * 1000 - clock.nowMillis())
        session.expiryTimer = tokenExpiries.schedule(session.connectionID, at: clock.monotonicMillis() + remaining)
        armExpiryTimer()
    }

    /// Forgets the expiry of a socket that closed.
    func forgetExpiry(of session: ClientSession) {
        guard let timer = session.expiryTimer else { return }
        tokenExpiries.cancel(timer)
        session.expiryTimer = nil
        armExpiryTimer()
    }

    /// Checks a newer token off the service thread, then extends the socket's life with it.
    func refreshToken(_ params: RefreshTokenParams, requestID: String, for session: ClientSession) {
        let tokens = tokens
        let id = session.connectionID
        offServiceThread({ await tokens.verifiedConnection(params.token) }) { [self] result in
            finishRefresh(result, requestID: requestID, for: id)
        }
    }

    /// Service thread: a token for the socket's own uid extends its life; anything else is
    /// refused with `AUTH_ERR` and the socket keeps the token it has.
    private func finishRefresh(_ result: Result<TokenClaims, TokenError>, requestID: String, for id: ConnectionID) {
        guard let connection = sockets[id], let session = connection.attachment as? ClientSession,
            let user = session.user
        else { return }
        beginOutput()
        switch result {
        case .failure(let error):
            logger.info("token refresh refused", metadata: ["uid": "\(user.uid)", "connection": "\(id)", "reason": "\(error.message)"])
            fail(connection, requestID: requestID, code: .authError, message: error.message)
        case .success(let claims) where claims.user.uid != user.uid:
            logger.info("token refresh refused", metadata: ["uid": "\(user.uid)", "connection": "\(id)", "reason": "another uid"])
            fail(connection, requestID: requestID, code: .authError, message: "the token is for another user than this socket's")
        case .success(let claims):
            keepOpen(session, until: claims.expiresAt)
            let result = RefreshTokenResult(tokenExpiresAt: session.tokenExpiresAt)
            transmit(OutboundFrame(ReplyFrame.success(id: requestID, result: result)), to: connection)
        }
    }

    /// Closes, with 4003, every socket whose token expired; re-arms for the next one.
    func closeExpired() {
        let now = clock.monotonicMillis()
        while let id = tokenExpiries.popDue(now: now) {
            guard let connection = sockets[id], let session = connection.attachment as? ClientSession else { continue }
            session.expiryTimer = nil
            logger.info("closing socket whose token expired", metadata: ["connection": "\(id)", "uid": "\(session.user?.uid ?? "")"])
            metrics.authFailed(.tokenExpired)
            connection.close(code: CloseCode.tokenExpired, reason: "token expired")
        }
        armExpiryTimer()
    }

    private func armExpiryTimer() {
        guard let deadline = tokenExpiries.nextDeadline() else {
            expiryTimer.cancel()
            return
        }
        expiryTimer.schedule(afterMicroseconds: max(0, deadline - clock.monotonicMillis()) * 1000)
    }
}
