import CallGateCluster
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
    /// the user has `maxDevicesPerUser` sockets (a connection this one takes over not counted).
    private func finishConnect(
        _ result: Result<TokenClaims, TokenError>, recovering recover: RecoverParams?, answering request: ReplyAddress
    ) {
        let id = request.connection
        guard let connection = connections[id] else { return }
        switch result {
        case .failure(let error):
            logger.info(
                "connect refused",
                metadata: ["connection": "\(id)", "client": "\(connection.clientAddress)", "reason": "\(error.message)"])
            if let reason = AuthFailureReason(error) {
                metrics.authFailed(reason)
            }
            fail(request, code: .authError, message: error.message)
            emit(.close(id, code: CloseCode.unauthorized, reason: "unauthorized"))
        case .success(let claims) where devices(of: claims.user.uid, besides: recover) >= configuration.maxDevicesPerUser:
            noteLimit(.tooManyDevices, metadata: ["uid": "\(claims.user.uid)", "client": "\(connection.clientAddress)"])
            fail(
                request, code: .tooManyDevices,
                message: "\(claims.user.uid) has \(configuration.maxDevicesPerUser) devices connected already")
            emit(.close(id, code: CloseCode.tooManyDevices, reason: "too many devices"))
        case .success(let claims):
            guard let cluster else {
                admit(connection, as: claims, recovering: recover, answering: request)
                return
            }
            let uid = claims.user.uid
            arrivals[uid, default: 0] += 1
            // The device cap holds on the nodes together: this node claims one more slot in
            // the user's presence, which counts the devices of every live run.
            cluster.presence.claim(
                uid, devices: devices(of: uid, besides: recover), limit: configuration.maxDevicesPerUser,
                counting: cluster.membership.liveRuns
            ) { [self] claimed in
                guard case .success(true) = claimed else {
                    arrivals[uid] = arrivals[uid].flatMap { $0 > 1 ? $0 - 1 : nil }
                    if arrivals[uid] == nil {
                        arrivingPushes.arrived(uid)
                    }
                    userLeft(uid)
                    guard connections[id] === connection else { return }
                    if case .failure(let failure) = claimed {
                        connection.life.connectFailed()
                        fail(request, code: .clusterUnavailable, message: "cannot count your devices in Redis: \(failure); send connect again shortly")
                        return
                    }
                    noteLimit(.tooManyDevices, metadata: ["uid": "\(uid)", "client": "\(connection.clientAddress)"])
                    fail(
                        request, code: .tooManyDevices,
                        message: "\(uid) has \(configuration.maxDevicesPerUser) devices connected already, on the nodes together")
                    emit(.close(id, code: CloseCode.tooManyDevices, reason: "too many devices"))
                    return
                }
                listen(connection, as: claims, recovering: recover, answering: request)
            }
        }
    }

    /// Cluster mode: once the device has its slot, listens to its user's pushes, reads their
    /// push sequence and the calls of the other nodes, and registers it. Pushes to the user
    /// reach this node once Redis confirmed its subscription: only then are the sequence and the
    /// calls read, and the device told it is connected. Until then it may send no op, and the
    /// `connect` deadline still runs; pushes that come meanwhile are held for it
    /// (`ArrivingPushes`).
    private func listen(
        _ connection: ClientConnection, as claims: TokenClaims, recovering recover: RecoverParams?,
        answering request: ReplyAddress
    ) {
        guard let cluster else { return }
        let id = connection.id
        let uid = claims.user.uid
        cluster.bus.listen(to: uid) { [self] in
            cluster.pushes.read(uid, recovering: recover.map { ($0.epoch, $0.seq) }) { [self] recall in
                activeCallsElsewhere(of: uid) { [self] elsewhere in
                    // Counted out before it is registered (which writes the user's presence),
                    // the held pushes let go after (so that it gets them).
                    arrivals[uid] = arrivals[uid].flatMap { $0 > 1 ? $0 - 1 : nil }
                    defer {
                        if arrivals[uid] == nil {
                            arrivingPushes.arrived(uid)
                        }
                    }
                    guard connections[id] === connection else {
                        userLeft(uid)
                        return
                    }
                    switch recall {
                    case .success(let recall):
                        admit(
                            connection, as: claims, recovering: recover, elsewhere: elsewhere.calls, recalled: recall,
                            answering: request)
                        markPresent(claims.user)
                        for owner in elsewhere.owners {
                            announce(connection, to: owner)
                        }
                    case .failure(let failure):
                        connection.life.connectFailed()
                        userLeft(uid)
                        fail(
                            request, code: .clusterUnavailable,
                            message: "cannot read your push sequence in Redis: \(failure); send connect again shortly")
                    }
                }
            }
        }
    }

    private func admit(
        _ connection: ClientConnection, as claims: TokenClaims, recovering recover: RecoverParams?,
        elsewhere: [Call] = [], recalled: PushStream.Recall? = nil, answering request: ReplyAddress
    ) {
        if connection.life.connected(until: claims.expiresAt) {
            scheduleExpiry(of: connection)
        }
        logger.info(
            "connected",
            metadata: ["uid": "\(claims.user.uid)", "connection": "\(connection.id)", "client": "\(connection.clientAddress)"])
        arrive(connection, as: claims.user, recovering: recover, elsewhere: elsewhere, recalled: recalled, answering: request)
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
        guard let connection = connections[id], let user = core.user(of: id) else { return }
        switch result {
        case .failure(let error):
            logger.info("token refresh refused", metadata: ["uid": "\(user.uid)", "connection": "\(id)", "reason": "\(error.message)"])
            fail(request, code: .authError, message: error.message)
        case .success(let claims) where claims.user.uid != user.uid:
            logger.info("token refresh refused", metadata: ["uid": "\(user.uid)", "connection": "\(id)", "reason": "another uid"])
            fail(request, code: .authError, message: "the token is for another user than this socket's")
        case .success(let claims):
            if connection.life.extend(until: claims.expiresAt) {
                scheduleExpiry(of: connection)
            }
            succeed(request, with: RefreshTokenResult(tokenExpiresAt: connection.life.tokenExpiresAt))
        }
    }

    /// Schedules the close of `connection` when its token expires (`life.tokenExpiresAt`, Unix
    /// seconds), in place of the schedule it had.
    private func scheduleExpiry(of connection: ClientConnection) {
        let expiresAt = connection.life.tokenExpiresAt
        if let timer = connection.expiryTimer {
            tokenExpiries.cancel(timer)
        }
        let remaining = max(0, expiresAt * 1000 - clock.nowMillis())
        connection.expiryTimer = tokenExpiries.schedule(connection.id, at: clock.monotonicMillis() + remaining)
        armExpiryTimer()
    }

    /// Forgets the expiry of a socket that closed.
    func forgetExpiry(of connection: ClientConnection) {
        guard let timer = connection.expiryTimer else { return }
        tokenExpiries.cancel(timer)
        connection.expiryTimer = nil
        armExpiryTimer()
    }

    /// Closes, with 4003, every socket whose token expired; re-arms for the next one.
    func closeExpired() {
        let now = clock.monotonicMillis()
        while let id = tokenExpiries.popDue(now: now) {
            guard let connection = connections[id] else { continue }
            connection.expiryTimer = nil
            logger.info(
                "closing socket whose token expired",
                metadata: ["connection": "\(id)", "uid": "\(core.user(of: id)?.uid ?? "")"])
            metrics.authFailed(.tokenExpired)
            connection.socket.close(code: CloseCode.tokenExpired, reason: "token expired")
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

    // MARK: Call tokens

    /// Issues a call token once the Core agreed this user may have one for this session.
    func generateToken(_ params: SessionParams, answering request: ReplyAddress) {
        let user: User
        switch core.authorizeCallToken(sessionId: params.sessionId, from: request.connection) {
        case .failure(let error):
            fail(request, code: error.code, message: error.message)
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
            let request = address(
                request.requestID, on: request.connection, concerning: params.sessionId, forward: request.forward)
            guard core.user(of: request.connection) != nil else { return }
            if let minted {
                succeed(request, with: minted)
            } else {
                fail(request, code: .badRequest, message: "the gateway could not sign a call token")
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
            guard let connection = connections[id], case .success(let granted) = grant, cluster != nil else {
                join(params, grant: grant, answering: request)
                return
            }
            route(granted.sessionId, claiming: true, bytes: bytes, from: connection, answering: request) { [self] in
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
        let request = address(
            request.requestID, on: id, concerning: try? grant.get().sessionId, forward: request.forward)
        switch grant {
        case .failure(let error):
            fail(request, code: .authError, message: error.message)
        case .success(let grant) where grant.uid != user.uid:
            fail(request, code: .authError, message: "this call token was issued to another user")
        case .success(let grant):
            guard let cluster, !core.knows(grant.sessionId), SessionIDFormat.isValid(grant.sessionId) else {
                joinSessionNow(grant.sessionId, params, from: id, answering: request)
                return
            }
            // A new meeting is a call start, counted on the nodes together.
            let start = CallStarts.Start(limit: configuration.core.maxCallsPerMinute)
            cluster.starts.spend(start, by: user.uid) { [self] result in
                guard core.user(of: id) != nil else {
                    cluster.starts.refund(start, by: user.uid)
                    return
                }
                switch result {
                case .success(true):
                    if !joinSessionNow(grant.sessionId, params, from: id, answering: request) {
                        cluster.starts.refund(start, by: user.uid)
                    }
                case .success(false):
                    startsUsedUp(request)
                case .failure(let failure):
                    fail(request, code: .clusterUnavailable, message: "cannot count your call starts in Redis: \(failure); try again shortly")
                }
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
