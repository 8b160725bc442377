import CallGateCore
import CallGateProtocol
import Foundation
import LWS

/// Everything a token decides: `connect`, `refreshToken` and the close at a token's expiry, and
/// the call tokens of `generateToken` and `joinSession`. Tokens are checked and signed off the
/// service thread (jwt-kit is async, see `offServiceThread`); the result comes back through the
/// mailbox and is acted on here, on the service thread.
extension GatewayService {
    // MARK: connect

    /// Checks a `connect` token, then registers the connection or refuses it.
    func verify(_ params: ConnectParams, answering request: ReplyAddress) {
        let tokens = tokens
        offServiceThread({ await tokens.verifiedConnection(params.token) }) { [self] result in
            finishConnect(result, recovering: params.recover, answering: request)
        }
    }

    /// Registers the user with the Core and replies (then replays what the device missed, see
    /// `arrive`), or rejects with AUTH_ERR and 4001, or with ERR_TOO_MANY_DEVICES and 4009 when
    /// the user has `maxDevicesPerUser` sockets (a connection this one replaces not counted).
    private func finishConnect(
        _ result: Result<TokenClaims, TokenError>, recovering recover: RecoverParams?, answering request: ReplyAddress
    ) {
        let id = request.connection
        guard let connection = hub[id] else { return }
        switch result {
        case .failure(let error):
            logger.info(
                "connect refused",
                metadata: ["connection": "\(id)", "client": "\(connection.clientAddress)", "reason": "\(error.message)"])
            if let reason = AuthFailureReason(error) {
                metrics.authFailed(reason)
            }
            output.fail(request, code: .authError, message: error.message)
            output.emit(.close(id, code: CloseCode.unauthorized, reason: "unauthorized"))
        case .success(let claims) where devices(of: claims.user.uid, besides: recover) >= configuration.maxDevicesPerUser:
            hub.noteLimit(.tooManyDevices, metadata: ["uid": "\(claims.user.uid)", "client": "\(connection.clientAddress)"])
            output.fail(
                request, code: .tooManyDevices,
                message: "\(claims.user.uid) has \(configuration.maxDevicesPerUser) devices connected already")
            output.emit(.close(id, code: CloseCode.tooManyDevices, reason: "too many devices"))
        case .success(let claims):
            fabric.arrive(connection, as: claims, recovering: recover, answering: request)
        }
    }

    /// Admits `connection` as the user of `claims`, its token's expiry scheduled, and has it
    /// arrive (see `arrive`) with `recall` of its user's pushes, the calls of other nodes that
    /// concern its user (`elsewhere`) and their missed calls (`readMissedCalls`). The fabric
    /// calls it once the device has its place.
    func admit(
        _ connection: ClientConnection, as claims: TokenClaims, recovering recover: RecoverParams?, recall: Recall,
        elsewhere: [Call] = [], missedCalls: MissedCalls?, answering request: ReplyAddress
    ) {
        hub.connected(connection, until: claims.expiresAt)
        logger.info(
            "connected",
            metadata: ["uid": "\(claims.user.uid)", "connection": "\(connection.id)", "client": "\(connection.clientAddress)"])
        arrive(
            connection, as: claims.user, recovering: recover, elsewhere: elsewhere, recall: recall, missedCalls: missedCalls,
            answering: request)
    }

    // MARK: Token life

    /// Checks a newer token, then extends the socket's life with it.
    func refreshToken(_ params: RefreshTokenParams, answering request: ReplyAddress) {
        let tokens = tokens
        offServiceThread({ await tokens.verifiedConnection(params.token) }) { [self] result in
            finishRefresh(result, answering: request)
        }
    }

    /// A token for the socket's own uid extends its life; anything else is refused with
    /// `AUTH_ERR` and the socket keeps the token it has.
    private func finishRefresh(_ result: Result<TokenClaims, TokenError>, answering request: ReplyAddress) {
        let id = request.connection
        guard let connection = hub[id], let user = core.user(of: id) else { return }
        switch result {
        case .failure(let error):
            logger.info("token refresh refused", metadata: ["uid": "\(user.uid)", "connection": "\(id)", "reason": "\(error.message)"])
            output.fail(request, code: .authError, message: error.message)
        case .success(let claims) where claims.user.uid != user.uid:
            logger.info("token refresh refused", metadata: ["uid": "\(user.uid)", "connection": "\(id)", "reason": "another uid"])
            output.fail(request, code: .authError, message: "the token is for another user than this socket's")
        case .success(let claims):
            hub.extend(connection, until: claims.expiresAt)
            output.succeed(request, with: RefreshTokenResult(tokenExpiresAt: connection.life.tokenExpiresAt))
        }
    }

    // MARK: Call tokens

    /// Issues a call token once the Core agreed this user may have one for this session.
    func generateToken(_ params: SessionParams, answering request: ReplyAddress) {
        let user: User
        switch core.authorizeCallToken(sessionId: params.sessionId, from: request.connection) {
        case .failure(let error):
            output.fail(request, code: error.code, message: error.message)
            return
        case .success(let authorized):
            user = authorized
        }
        let tokens = tokens
        offServiceThread({ () async -> GenerateTokenResult? in
            guard let minted = try? await tokens.mintCallToken(uid: user.uid, sessionId: params.sessionId) else {
                return nil
            }
            return GenerateTokenResult(callToken: minted.token, sessionId: params.sessionId, expiresAt: minted.expiresAt)
        }) { [self] minted in
            guard core.user(of: request.connection) != nil else { return }
            if let minted {
                output.succeed(request, with: minted)
            } else {
                output.fail(request, code: .badRequest, message: "the gateway could not sign a call token")
            }
        }
    }

    /// Checks the call token of a device of this node, then joins it to the session the token
    /// names, on the node that owns that session (a session no node owns becomes this node's).
    func joinSession(
        _ params: JoinSessionParams, as bytes: [UInt8], from connection: ClientConnection, answering request: ReplyAddress
    ) {
        let tokens = tokens
        let id = connection.id
        offServiceThread({ await tokens.verifyCallToken(params.callToken) }) { [self] grant in
            guard let connection = hub[id], case .success(let granted) = grant else {
                join(params, grant: grant, answering: request)
                return
            }
            fabric.route(granted.sessionId, claiming: true, bytes: bytes, from: connection, answering: request) { [self] in
                join(params, grant: grant, answering: request)
            }
        }
    }

    /// Checks the call token, then joins the device that asked to the session it names, here:
    /// the op of a device of this node, or one forwarded here by the node that holds it.
    func joinSession(_ params: JoinSessionParams, answering request: ReplyAddress) {
        let tokens = tokens
        offServiceThread({ await tokens.verifyCallToken(params.callToken) }) { [self] grant in
            join(params, grant: grant, answering: request)
        }
    }

    /// Joins the device that asked to the session `grant` names; the token's user must be the
    /// device's user.
    private func join(_ params: JoinSessionParams, grant: Result<CallGrant, TokenError>, answering request: ReplyAddress) {
        let id = request.connection
        guard let user = core.user(of: id) else { return }
        var request = request
        request.sessionId = try? grant.get().sessionId
        switch grant {
        case .failure(let error):
            output.fail(request, code: .authError, message: error.message)
        case .success(let grant) where grant.uid != user.uid:
            output.fail(request, code: .authError, message: "this call token was issued to another user")
        case .success(let grant):
            fabric.joining(grant.sessionId, as: user.uid, from: id, answering: request) { [self] in
                joinSessionNow(grant.sessionId, params, from: id, answering: request)
            }
        }
    }

    /// Joins device `id` to session `sessionId`; returns whether it did.
    @discardableResult
    private func joinSessionNow(
        _ sessionId: String, _ params: JoinSessionParams, from id: ConnectionID, answering request: ReplyAddress
    ) -> Bool {
        let outcome = core.joinSession(
            sessionId: sessionId, from: id, audioOnly: params.audioOnly ?? false, idleTimeout: params.idleTimeout)
        let joined = (try? outcome.reply.get()) != nil
        send(outcome.mapReply(SessionResult.init), answering: request)
        return joined
    }
}
